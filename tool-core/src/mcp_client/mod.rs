//! Other MCP servers' tools as toolwright tools (feature `mcp-client`): [`McpSource`]
//! connects to a server (a child process over stdio, or Streamable HTTP; the 2026-07-28
//! protocol or the 2025-11-25 one, whichever the server speaks), lists its tools and
//! imports them into a [`Registry`](crate::Registry) as ordinary tools, so every layer
//! applies to them unchanged: definitions in every dialect, validation, effects and
//! policy, approval, idempotency, output budgets, search, visibility and code mode.
//!
//! MCP is not a security boundary: a server's descriptions, annotations and results are
//! a stranger's words. So, unless the user says otherwise:
//!
//! | what the server sends | what toolwright does |
//! | --- | --- |
//! | its tool list | every page read as JSON and each entry on its own (a malformed one is refused with what is wrong, the rest import), within caps: [`MAX_PAGES`], [`MAX_CURSOR_BYTES`], a cursor never seen twice, [`ImportLimits`]; no two tools ever share a name ([`McpSource::report`] says which were refused and why) |
//! | annotations (`readOnlyHint`, ...) | ignored: every tool is `external` (the default policy asks a person); with [`McpSourceBuilder::trust_annotations`], mapped by [`effect_of`] |
//! | descriptions and titles (the tool's, and inside its schemas), defaults, examples, enum values | hidden characters and HTML comments removed, cut to a limit, instructions aimed at the model reported as [`Finding`]s naming their place |
//! | an input schema | refused with the reason if too large, not an object schema, or not a schema toolwright can check; otherwise every call is checked against it here, before the network |
//! | an output schema | the result is checked against it; a result that does not match is an error |
//! | results | read one block at a time (an unknown or undecodable block becomes a placeholder), terminal escapes and hidden characters removed from what the model reads; a stdio message over [`ImportLimits::message_bytes`] fails its call at once; through the output budget, like every tool's; marked with their source ([`ToolResult::source`](crate::ToolResult::source), and `_meta["dev.toolwright/source"]` when served again); never read as instructions |
//! | `notifications/tools/list_changed` | the list is read again before the next call (one reading at a time, at most one per [`REFRESH_INTERVAL`]), and before the first call on a new process or session; a changed or vanished tool is refused, not sent ([`McpSource::watch`] turns it off in the registry) |
//! | a request for a person's input within a call (2026-07-28's input-required result) | the call pauses as toolwright's own `awaiting_approval`, with a signed ticket; once a person approves it ([`Registry::resume`](crate::Registry::resume)), the call is sent again and the server's yes-or-no form answered yes (a form asking for more is an error); declined, it is never sent again |
//! | elicitation requests on the connection (2025-11-25), sampling, roots | declined (at most [`MAX_ELICITATIONS`] per call sent, then refused), and refused (no sampling or roots capability), unless the user installs an answer ([`McpSourceBuilder::on_elicitation`]) |
//!
//! A lost connection is made again (a new session when the old one is gone). A call is
//! sent again after it only when that cannot repeat its effect: the connection was
//! refused (nothing sent), the tool is a trusted read-only or idempotent one, or the call
//! carries an idempotency key and the server honours it
//! ([`McpSourceBuilder::honours_idempotency_keys`]). Otherwise its outcome is reported as
//! unknown. The dispatcher's idempotency key goes to the server in `_meta`
//! (`dev.toolwright/idempotency-key`), and with feature `otel` the trace context
//! (`traceparent`) too, so a trace runs from the model's call into the server.
//!
//! Over HTTP, a server that wants credentials gets a bearer token
//! ([`McpSourceBuilder::bearer_token`]), OAuth client credentials
//! ([`McpSourceBuilder::client_credentials`]) or a person's sign-in
//! ([`McpSourceBuilder::sign_in`], OAuth's authorization-code flow), never logged.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use std::process::Command;
//! use toolwright::mcp_client::McpSource;
//! use toolwright::Registry;
//!
//! let mut command = Command::new("npx");
//! command.args(["-y", "@modelcontextprotocol/server-everything"]);
//! let everything = McpSource::stdio("everything", command)
//!     .prefix("everything")
//!     .connect()
//!     .await?;
//! for line in everything.report() {
//!     eprintln!("{}: {:?}", line.tool, line.status);
//! }
//! let registry = Registry::builder().with_toolset(everything).build()?;
//! # Ok(()) }
//! ```

mod answer;
mod bounded;
mod builder;
mod credentials;
mod import;
mod link;
mod listing;
mod names;
#[cfg(test)]
mod properties;
mod remote;
mod renewal;
mod report;
mod result;
mod shared;
mod source;
mod tasks;

pub use rmcp;

pub use builder::McpSourceBuilder;
pub use credentials::SignIn;
pub use import::{Finding, FindingKind, ImportLimits, MAX_MESSAGE_BYTES, Trust, effect_of};
pub use link::{ConnectError, MAX_ELICITATIONS};
pub use listing::{MAX_CURSOR_BYTES, MAX_PAGES};
pub use report::{ImportStatus, ToolReport};
pub use shared::REFRESH_INTERVAL;
pub use source::McpSource;
