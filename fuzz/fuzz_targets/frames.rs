//! Any bytes as the LSP input stream through the transport guard
//! (`permission_lsp::fuzzing::frames` holds the invariants).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    permission_lsp::fuzzing::frames(data);
});
