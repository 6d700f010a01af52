//! Progress and log messages from inside a running tool, to whoever runs it.
//!
//! A tool calls [`progress`] or [`log`] as it works; the harness that dispatched the call
//! decides where they go by running the call inside [`scope`]. The MCP server sends them
//! to the client as `notifications/progress` (when the request asked for progress) and
//! `notifications/message`. Outside a scope both are no-ops, so a tool can report
//! unconditionally.
//!
//! ```
//! # use toolwright::{tool, feedback};
//! /// Index every file of the workspace.
//! #[tool(effect = "write")]
//! async fn reindex() -> String {
//!     let files = 3;
//!     for done in 1..=files {
//!         feedback::progress(done as f64, Some(files as f64), Some("indexing"));
//!     }
//!     feedback::log(feedback::Level::Info, "index rebuilt");
//!     format!("{files} files indexed")
//! }
//! # let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
//! # let sink = { let seen = seen.clone(); move |f: feedback::Feedback| seen.lock().unwrap().push(f) };
//! # let ctx = toolwright::Context::new();
//! # let registry = toolwright::Registry::builder().with(Reindex).build().unwrap();
//! # let call = toolwright::ToolCall::new("1", "reindex", "{}");
//! # futures_executor_block_on(feedback::scope(sink, registry.dispatch(&ctx, call)));
//! # assert_eq!(seen.lock().unwrap().len(), 4);
//! # fn futures_executor_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(f)
//! # }
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// How much a log message matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that the tool handled.
    Warning,
    /// Something failed.
    Error,
}

/// One message from a running tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Feedback {
    /// How far the work has come.
    Progress {
        /// Work done so far; increases with each report.
        progress: f64,
        /// All the work, when known.
        total: Option<f64>,
        /// What is happening now.
        message: Option<String>,
    },
    /// A log message.
    Log {
        /// How much it matters.
        level: Level,
        /// The message.
        message: String,
    },
}

type Sink = Arc<dyn Fn(Feedback) + Send + Sync>;

thread_local! {
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// Reports how far the running tool has come: `progress` of `total` (when known).
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) {
    send(|| Feedback::Progress {
        progress,
        total,
        message: message.map(str::to_owned),
    });
}

/// Logs a message from the running tool.
pub fn log(level: Level, message: impl Into<String>) {
    send(|| Feedback::Log {
        level,
        message: message.into(),
    });
}

/// Hands the message to the scope's sink; outside a scope it is not even built.
fn send(feedback: impl FnOnce() -> Feedback) {
    // Cloned out first: the sink may itself report, or run code that does.
    let sink = SINK.with(|sink| sink.borrow().clone());
    if let Some(sink) = sink {
        sink(feedback());
    }
}

/// Runs `future` with `sink` receiving what the tools it polls report. Work a tool hands
/// to another task (`tokio::spawn`) is outside the scope.
///
/// Give it a future that has not started: [`Registry::dispatch`](crate::registry::Registry::dispatch)
/// runs nothing before its first poll, but [`Tool::call`](crate::tool::Tool::call) runs a
/// synchronous tool at once, so wrap that one: `scope(sink, async { tool.call(ctx,
/// args).await })`.
pub fn scope<F: Future>(sink: impl Fn(Feedback) + Send + Sync + 'static, future: F) -> Scoped<F> {
    Scoped {
        sink: Arc::new(sink),
        future: Box::pin(future),
    }
}

/// The future [`scope`] returns.
pub struct Scoped<F> {
    sink: Sink,
    future: Pin<Box<F>>,
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let previous = SINK.with(|sink| sink.replace(Some(self.sink.clone())));
        // Restores the outer scope even when the poll panics.
        struct Restore(Option<Sink>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                SINK.with(|sink| *sink.borrow_mut() = previous);
            }
        }
        let _restore = Restore(previous);
        self.future.as_mut().poll(cx)
    }
}
