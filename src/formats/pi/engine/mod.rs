//! Decisions exactly as `@gotgenes/pi-permission-system` 20.7.3 makes them:
//! the wildcard matcher, the ordered rule list, scope merge, path values, the
//! gate pipeline, bash decomposition, MCP targets and the agent-facing texts.
//! No LSP or terminal types here.

pub mod bash;
pub mod check;
pub mod gates;
pub mod js;
pub mod mcp;
pub mod merge;
pub mod messages;
pub mod paths;
pub mod policy;
pub mod renderer;
pub mod rules;
pub mod wildcard;
