//! Any text as a command line, parsed by the bash grammar's linear path and
//! as written (`permission_lsp::fuzzing::command` holds the invariant).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    permission_lsp::fuzzing::command(data);
});
