//! Any bytes as a runtime's decision log, replayed
//! (`permission_lsp::fuzzing::decision_log` holds the invariants).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    permission_lsp::fuzzing::decision_log(data);
});
