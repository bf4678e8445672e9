//! pi-permission-system (`@gotgenes/pi-permission-system`): config files and
//! agent frontmatter as the runtime sees them.

pub mod agent;
pub mod config;
pub mod locations;
pub mod read;
pub mod schema;
pub mod validate;
pub mod versions;

pub use config::{
    Knobs, PatternRule, PiConfig, RuleValue, ShellTool, State, Surface, SurfaceValue,
};
pub use versions::Version;
