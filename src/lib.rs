//! # toolwright
//!
//! Turn plain Rust functions into tools a language model can call. `#[tool]` reads a
//! function's signature and rustdoc at compile time and generates the JSON Schema of its
//! arguments, its description and the glue that deserializes a model's call and runs it.
//! The signature is the contract: rename an argument and the schema follows; document an
//! argument that does not exist and the build fails.
//!
//! ```
//! use toolwright::{Context, Tool, ToolError, tool};
//!
//! /// Add two numbers.
//! ///
//! /// # Arguments
//! /// * `a` - The first number.
//! /// * `b` - The second number.
//! #[tool(effect = "read_only")]
//! fn add(a: i64, b: i64) -> Result<i64, ToolError> {
//!     a.checked_add(b).ok_or_else(|| ToolError::failed("the sum overflows"))
//! }
//!
//! // The function stays a function...
//! assert_eq!(add(2, 3).unwrap(), 5);
//! // ...and `Add` is the tool.
//! assert_eq!(Add.spec().name, "add");
//! assert_eq!(Add.spec().input_schema["required"], serde_json::json!(["a", "b"]));
//! ```
//!
//! See the README for the attribute reference, the supported types and the effect
//! classes.

#![deny(missing_docs)]

pub use toolwright_core::provider::Dialect;
pub use toolwright_core::schema::lower::{LoweringError, Target};
pub use toolwright_core::{
    Annotations, Arguments, CallArguments, Content, ContentBlock, Context, ContextType, DryRun,
    DryRunVerdict, Effect, EmbeddedResource, ErrorKind, Event, IntoToolOutput, MissingContext,
    Observation, Prepared, Problem, Registry, RegistryError, Retry, SchemaGenerator, Tool,
    ToolCall, ToolError, ToolFuture, ToolOutcome, ToolOutput, ToolResult, ToolSchema, ToolSettings,
    ToolSpec, is_valid_tool_name,
};
pub use toolwright_core::{
    approval, capability, feedback, idempotency, output, policy, provider, schema, validate,
};

/// Serve a registry over MCP, stdio or Streamable HTTP (feature `mcp`).
#[cfg(feature = "mcp")]
pub use toolwright_core::mcp;

/// Turns a function into a tool: see the crate docs and the README's attribute reference.
pub use toolwright_macros::tool;

/// Derives [`ToolSchema`](trait@ToolSchema) for a struct or an enum, following its serde
/// attributes.
pub use toolwright_macros::ToolSchema;

#[doc(hidden)]
pub use toolwright_core::private as __private;
