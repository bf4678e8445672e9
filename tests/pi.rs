//! pi-permission-system: reading, conformance with the runtime's own vectors and drift cases, findings and their fixes, versions, the corpus, the schema, explain, and the differential tests against 20.7.3 and 26.3.1.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

// Helpers several modules share, loaded once.
#[path = "common/mod.rs"]
mod common;
#[path = "differential/gen.rs"]
mod generate;

#[path = "agent_files.rs"]
mod agent_files;
#[path = "config_load.rs"]
mod config_load;
#[path = "conformance.rs"]
mod conformance;
#[path = "corpus.rs"]
mod corpus;
#[path = "diagnostic_snapshots.rs"]
mod diagnostic_snapshots;
#[path = "differential.rs"]
mod differential;
#[path = "differential_pi26.rs"]
mod differential_pi26;
#[path = "explain.rs"]
mod explain;
#[path = "pi_versions.rs"]
mod pi_versions;
#[path = "rule_findings.rs"]
mod rule_findings;
#[path = "rule_findings_runtime.rs"]
mod rule_findings_runtime;
#[path = "schema.rs"]
mod schema;
