// The crate documentation is the README: the quickstart, the guide to dispatching calls,
// effects, provider dialects and MCP, and the reference tables for the attributes, the
// supported types and the effect classes. Its Rust code blocks are compiled and run as
// doctests, so what it shows works.
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub use toolwright_core::provider::Dialect;
pub use toolwright_core::schema::lower::{LoweringError, LoweringErrors, Target};
pub use toolwright_core::{
    Annotations, Arguments, CallArguments, Content, ContentBlock, Context, ContextType, DryRun,
    DryRunVerdict, Effect, EmbeddedResource, ErrorKind, Event, IntoToolOutput, MissingContext,
    Observation, Prepared, Problem, Registry, RegistryError, Retry, SchemaGenerator, Telemetry,
    Tool, ToolCall, ToolError, ToolFuture, ToolOutcome, ToolOutput, ToolResult, ToolSchema,
    ToolSettings, ToolSpec, Toolset, is_valid_tool_name,
};
pub use toolwright_core::{
    approval, capability, feedback, idempotency, output, policy, provider, schema, telemetry,
    validate,
};

/// Serve a registry over MCP, stdio or Streamable HTTP (feature `mcp`).
#[cfg(feature = "mcp")]
pub use toolwright_core::mcp;
/// OpenTelemetry export of every call's span and the tool metrics (feature `otel`).
#[cfg(feature = "otel")]
pub use toolwright_core::otel;
/// Tool search for large catalogs (feature `search`).
#[cfg(feature = "search")]
pub use toolwright_core::search;

/// Turns a function into a tool: see the crate docs and the README's attribute reference.
pub use toolwright_macros::tool;

/// Turns the `#[tool]` methods of an `impl Service` block into tools sharing one service
/// value: see the README's "Toolsets".
pub use toolwright_macros::toolset;

/// Derives [`ToolSchema`](trait@ToolSchema) for a struct or an enum, following its serde
/// attributes.
pub use toolwright_macros::ToolSchema;

#[doc(hidden)]
pub use toolwright_core::private as __private;
