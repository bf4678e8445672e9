//! Any bytes as a document of every format and role, through analysis,
//! outline, hover, completion and every quick fix
//! (`permission_lsp::fuzzing::document` holds the invariants; the test
//! suite runs the same function on seeded mutations).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    permission_lsp::fuzzing::document(data);
});
