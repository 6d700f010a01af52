//! The runtime of toolwright: the schema model, tool specs, effect classes, the context
//! that `#[ctx]` parameters receive, and the `Tool` trait that `#[tool]` implements.
//!
//! Depend on the `toolwright` facade rather than on this crate directly.

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

/// A builder method per field of a settings struct that is `#[non_exhaustive]` (so it can
/// gain settings without breaking anyone): `limits.tool_calls(20)` sets `tool_calls`.
macro_rules! setters {
    ($ty:ty { $($field:ident: $t:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Sets [`", stringify!($field), "`](Self::", stringify!($field), ").")]
                #[must_use]
                pub fn $field(mut self, value: $t) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

pub mod approval;
mod arguments;
mod call;
pub mod capability;
mod cfg;
#[cfg(feature = "code")]
pub mod code;
mod content;
mod context;
mod dialect;
mod dispatch;
mod effect;
mod error;
pub mod eval;
mod event;
pub mod feedback;
pub mod final_result;
mod history;
crate::cfg_frameworks! {
    pub mod frameworks;
}
pub mod idempotency;
pub mod lint;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "mcp-client")]
pub mod mcp_client;
mod model;
mod observation;
#[cfg(feature = "otel")]
pub mod otel;
pub mod output;
pub mod partial;
pub mod policy;
pub mod provider;
mod registry;
#[cfg(feature = "restate")]
pub mod restate;
pub mod schema;
#[cfg(feature = "search")]
pub mod search;
mod similarity;
mod spec;
mod store;
pub mod stubs;
#[cfg(feature = "mcp")]
pub mod task;
pub mod telemetry;
mod timer;
mod tool;
#[cfg(feature = "search")]
pub mod tool_search;
pub mod validate;

#[doc(hidden)]
pub mod private;

pub use call::{CallArguments, DryRun, DryRunVerdict, ToolCall, ToolResult};
pub use content::{Content, ContentBlock, EmbeddedResource};
pub use context::{Context, ContextType};
pub use dialect::{Dialect, DialectFacts};
pub use effect::{Annotations, Effect};
pub use error::{ErrorKind, Problem, ToolError};
pub use event::Event;
pub use model::{Model, ModelFamily, Models};
pub use observation::Observation;
pub use registry::{
    MissingContext, Registry, RegistryBuilder, RegistryError, RegistryErrors, Retry, ToolSettings,
    Toolset,
};
pub use schema::{SchemaGenerator, ToolSchema};
pub use spec::{Callers, Idempotence, TaskSupport, ToolSpec, Via, is_valid_tool_name};
pub use telemetry::Telemetry;
pub use tool::{
    Arguments, CallHooks, CallInfo, IntoToolOutput, Prepared, ReconcileFuture, Reconciled, Tool,
    ToolFuture, ToolOutcome, ToolOutput,
};

/// The extensions every registry starts with, as the features build them (search's index,
/// which answers [`Registry::search`] with no configuration). The one place that names
/// them: the registry holds a list and knows none.
#[allow(clippy::vec_init_then_push)] // a push a feature
fn standing_extensions() -> Vec<Box<dyn registry::extension::Extension>> {
    #[allow(unused_mut)]
    let mut standing: Vec<Box<dyn registry::extension::Extension>> = Vec::new();
    #[cfg(feature = "search")]
    standing.push(Box::new(tool_search::Search::default()));
    standing
}
