//! Any bytes through the whole read + validate + diagnose path, plus the
//! position conversions of every diagnostic: no panic, ranges in bounds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use permission_lsp::analysis::{AnalysisOptions};
use permission_lsp::formats::pi::lints::{analyze_config_bytes};
use permission_lsp::text::{LineIndex, PositionEncoding};

fuzz_target!(|data: &[u8]| {
    let (text, analysis) = analyze_config_bytes(data, &AnalysisOptions::default());
    let index = LineIndex::new(&text);
    for d in &analysis.diagnostics {
        assert!(d.range.start <= d.range.end && d.range.end <= text.len(), "{d:?}");
        for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
            let p = index.position(&text, d.range.start, enc);
            let back = index.offset(&text, p, enc);
            assert!(back <= text.len());
        }
    }
});
