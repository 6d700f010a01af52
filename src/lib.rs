// The crate documentation: a front page (lib.md) that leads to guide modules (a task
// each) and reference modules (the tables), each a Markdown file beside this one. Every
// Rust block in them is a doctest, and so is every block of the README.
#![doc = include_str!("lib.md")]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use toolwright_core::{
    Annotations, Arguments, CallArguments, CallHooks, CallInfo, Callers, Content, ContentBlock,
    Context, ContextType, Dialect, DialectFacts, DryRun, DryRunVerdict, Effect, EmbeddedResource,
    ErrorKind, Event, Idempotence, IntoToolOutput, MissingContext, Model, ModelFamily, Models,
    Observation, Prepared, Problem, ReconcileFuture, Reconciled, Registry, RegistryBuilder,
    RegistryError, RegistryErrors, Retry, SchemaGenerator, TaskSupport, Telemetry, Tool, ToolCall,
    ToolError, ToolFuture, ToolOutcome, ToolOutput, ToolResult, ToolSchema, ToolSettings, ToolSpec,
    Toolset, Via, is_valid_tool_name,
};

// Each module lists what it exposes: an item added to the core is public here only when
// it is added to a list, and the API snapshot (tests/public_api.rs) shows it.

/// Approval of risky calls: the signed ticket a paused call carries and a person's
/// decision on it.
pub mod approval {
    pub use toolwright_core::approval::{ApprovalDecision, ApprovalTicket, digest};
}

/// Which tool does a request pick? Labelled requests through a picker (the registry's
/// search, scripted model outputs, a real model), with accuracy, confusions and pass^k.
pub mod eval {
    #[cfg(feature = "search")]
    pub use toolwright_core::eval::SearchPicker;
    pub use toolwright_core::eval::{
        Confusion, Labelled, Picked, Picker, Report, Scripted, ToolRecall, arguments_match,
        evaluate,
    };
}

/// Descriptions are prompts: the lint over tools' names, descriptions and schemas
/// ([`Registry::lint`]), its rules, allowances and baseline.
pub mod lint {
    pub use toolwright_core::lint::{
        Allowance, BASELINE_ENV, Finding, Group, Lint, RULES, Rule, Severity, check_baseline, rule,
    };
}

/// Code as the action: `run_code` runs a Python program the model wrote against the
/// tools' stubs, in an embedded interpreter, every tool call gated like a direct one
/// (feature `code`).
#[cfg(feature = "code")]
pub mod code {
    pub use toolwright_core::code::{CodeLimits, CodeMode, Isolation};
}

/// Context handles that only tools of a risky enough effect may take (checked at
/// compile time).
pub mod capability {
    pub use toolwright_core::capability::{ActsExternally, Destroys, Writes};
}

/// The API a program calls the tools through, typed from their contracts: Python and
/// TypeScript stubs.
pub mod stubs {
    pub use toolwright_core::stubs::{Loose, Stubs};
}

/// Progress and log messages from inside a running tool.
pub mod feedback {
    pub use toolwright_core::feedback::{Feedback, Level, Scoped, log, progress, scope};
}

/// A run that ends with data: the terminal tool whose arguments are the run's typed final
/// answer, and the run's calls its claims are checked against.
pub mod final_result {
    pub use toolwright_core::final_result::{FinalResult, RecordedCall, RunHistory};
}

/// Streaming tool input: a call's arguments checked while the model is still writing
/// them.
pub mod partial {
    pub use toolwright_core::partial::{PartialCall, StreamedTurn, Verdict};
}

/// Calls with external effects that happen once: the claim protocol and its stores.
pub mod idempotency {
    #[cfg(feature = "postgres")]
    pub use toolwright_core::idempotency::PostgresStore;
    #[cfg(feature = "redb")]
    pub use toolwright_core::idempotency::RedbStore;
    #[cfg(feature = "redis")]
    pub use toolwright_core::idempotency::RedisStore;
    pub use toolwright_core::idempotency::{
        Claim, ClaimRequest, Idempotency, IdempotencyStore, MemoryStore, Settlement, StoreError,
        StoreFuture, StoredOutcome, TaskRow, TaskStore,
    };
}

/// What the model reads of a result: the output budget, truncation and artifacts.
pub mod output {
    pub use toolwright_core::output::{ArtifactStore, DirectoryStore, OutputBudget, Truncation};
}

/// Who may run what: policies, the caller, and the ready rules.
pub mod policy {
    pub use toolwright_core::policy::{
        AllowAll, Caller, Decision, EffectPolicy, HostConfirms, Policy, PolicyRequest,
        caller_holds_scopes,
    };
}

/// Providers' wire formats: definitions out, calls in, results back, tool choice.
pub mod provider {
    pub use toolwright_core::provider::{
        ParseError, SYNTHESIZED_ID_PREFIX, ToolChoice, definition, encode_arguments, parse_calls,
        render_results, tool_choice,
    };
}

/// The schema model: [`ToolSchema`] and its generator, the formats,
/// and the lowering of a schema to each provider's dialect.
pub mod schema {
    #[cfg(feature = "schemars1")]
    pub use toolwright_core::schema::from_schemars;
    pub use toolwright_core::schema::lower::{LoweringError, LoweringErrors, Target, lower_schema};
    pub use toolwright_core::schema::{MapKey, ObjectSchema, SchemaGenerator, ToolSchema, formats};
}

/// What each call's span records (descriptions, arguments, results).
pub mod telemetry {
    pub use toolwright_core::telemetry::{Redact, Telemetry};
}

/// The JSON Schema validator behind every argument check.
pub mod validate {
    pub use toolwright_core::validate::{Keywords, Options, SchemaError, Validator};
}

toolwright_core::cfg_frameworks! {
    /// toolwright tools inside the agent frameworks Rust users already run, one feature
    /// each: every call through the registry's dispatch, the model reading toolwright's
    /// errors, approval carried into each framework's own mechanism.
    pub mod frameworks {
        pub use toolwright_core::frameworks::Answered;
        toolwright_core::cfg_framework_runner! {
            pub use toolwright_core::frameworks::PendingApprovals;
        }

        /// A registry's tools on a rig agent (feature `rig`).
        #[cfg(feature = "rig")]
        pub mod rig {
            pub use toolwright_core::frameworks::rig::{AgentBuilderExt, RigHook, RigTools};
        }

        /// A registry's tools in async-openai's Chat Completions and Responses types
        /// (feature `async-openai`).
        #[cfg(feature = "async-openai")]
        pub mod async_openai {
            pub use toolwright_core::frameworks::async_openai::{
                answer_chat, answer_responses, chat_calls, chat_result, chat_tools, choice_calls,
                responses_calls, responses_result, responses_tools,
            };
        }

        /// A registry's tools in genai's types, lowered for the adapter genai uses
        /// (feature `genai`).
        #[cfg(feature = "genai")]
        pub mod genai {
            pub use toolwright_core::frameworks::genai::{
                answer, answer_response, calls, dialect, response, response_calls, stream_event,
                tools,
            };
        }

        /// A registry as a swiftide `ToolBox`, approval through swiftide's feedback
        /// (feature `swiftide`).
        #[cfg(feature = "swiftide")]
        pub mod swiftide {
            pub use toolwright_core::frameworks::swiftide::{
                AgentBuilderExt, RegistryTool, SwiftideTools,
            };
        }
    }
}

/// Serve a registry over MCP on stdio (feature `mcp`) or Streamable HTTP (feature
/// `mcp-http`).
#[cfg(feature = "mcp")]
pub mod mcp {
    pub use toolwright_core::mcp::{
        APPROVAL_TICKET_META, DUPLICATE_META, IDEMPOTENCY_KEY_META, McpServer, RESUME_METHOD,
        SOURCE_META, SetupError, rmcp,
    };
    #[cfg(feature = "mcp-http")]
    pub use toolwright_core::mcp::{HttpLimits, HttpServer, auth, shutdown_signal};
}

/// Agent runs on [Restate](https://restate.dev) (feature `restate`): every tool call a
/// journaled step, every approval a durable wait, every effect once across crashes.
#[cfg(feature = "restate")]
pub mod restate {
    pub use toolwright_core::restate::{
        Journal, JournalContext, MAX_ENTRY_BYTES, OnApproval, Pending, Work,
    };
}

/// Calls that outlive their request (MCP Tasks, feature `mcp`): kept in the registry's
/// store, bound to the caller and the idempotency key, decided by effect after a crash.
#[cfg(feature = "mcp")]
pub mod task {
    pub use toolwright_core::task::{
        Cancellation, TaskError, TaskSettings, TaskStatus, TaskView, Tasks,
    };
}

/// Other MCP servers' tools as toolwright tools, every guarantee kept (feature
/// `mcp-client`).
#[cfg(feature = "mcp-client")]
pub mod mcp_client {
    /// The MCP SDK the client is built on: its model types (annotations, elicitation
    /// requests and answers, protocol versions) appear in `McpSource`'s settings. Its
    /// HTTP client needs a rustls provider installed before one is built: `McpSource`
    /// installs ring's when it connects over HTTP; using rmcp's transports directly
    /// before that, install one yourself.
    pub use toolwright_core::mcp_client::rmcp;
    pub use toolwright_core::mcp_client::{
        ConnectError, Finding, FindingKind, ImportLimits, ImportStatus, MAX_CURSOR_BYTES,
        MAX_ELICITATIONS, MAX_MESSAGE_BYTES, MAX_PAGES, McpSource, McpSourceBuilder,
        REFRESH_INTERVAL, SignIn, ToolReport, Trust, effect_of,
    };
}

/// OpenTelemetry export of every call's span and the tool metrics (feature `otel`).
#[cfg(feature = "otel")]
pub mod otel {
    pub use toolwright_core::otel::{OtelGuard, init, install, opentelemetry, opentelemetry_sdk};
}

/// Tool search for large catalogs (feature `search`), by words and, with an
/// [`Embedder`](search::Embedder), by meaning.
#[cfg(feature = "search")]
pub mod search {
    #[cfg(feature = "embed")]
    pub use toolwright_core::search::BertEmbedder;
    pub use toolwright_core::search::{
        EmbedError, Embedder, SearchHit, SemanticSearch, ToolVectors,
    };
    pub use toolwright_core::tool_search::{LoadedTools, SEARCH_TOOLS, ToolSearch};
}

// The macros' documentation (the attribute reference) is on the macros themselves, in
// tool-macros/reference/, where an editor's hover finds it; rustdoc shows it here too.
pub use toolwright_macros::{ToolSchema, tool, toolset};

#[doc(hidden)]
pub use toolwright_core::private as __private;

/// Guides, a task each: read the first one, then the ones your agent needs.
pub mod guide {
    #[doc = include_str!("guide/getting_started.md")]
    pub mod getting_started {}
    #[doc = include_str!("guide/effects.md")]
    pub mod effects {}
    #[doc = include_str!("guide/stores.md")]
    pub mod stores {}
    #[doc = include_str!("guide/mcp.md")]
    pub mod mcp {}
    #[doc = include_str!("guide/tasks.md")]
    pub mod tasks {}
    #[doc = include_str!("guide/mcp_client.md")]
    pub mod mcp_client {}
    #[doc = include_str!("guide/search.md")]
    pub mod search {}
    #[doc = include_str!("guide/code_mode.md")]
    pub mod code_mode {}
    #[doc = include_str!("guide/frameworks.md")]
    pub mod frameworks {}
    #[doc = include_str!("guide/streaming.md")]
    pub mod streaming {}
    #[doc = include_str!("guide/descriptions.md")]
    pub mod descriptions {}
    #[doc = include_str!("guide/observability.md")]
    pub mod observability {}
    #[doc = include_str!("guide/coding_agent.md")]
    pub mod coding_agent {}
}

/// Reference: the attributes, the supported types, the dialects and the errors.
pub mod reference {
    #[doc = include_str!("reference/attributes.md")]
    pub mod attributes {}
    #[doc = include_str!("reference/types.md")]
    pub mod types {}
    #[doc = include_str!("reference/dialects.md")]
    pub mod dialects {}
    #[doc = include_str!("reference/errors.md")]
    pub mod errors {}
}

/// The README's examples, compiled and run as doctests (they use the `mcp` and `code`
/// features).
#[cfg(all(doctest, feature = "mcp", feature = "code"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
