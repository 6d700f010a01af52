//! What a run has done so far: every call the registry answered for it, with its
//! arguments and outcome ([`RunHistory`], put in the run's context). The evidence a final
//! answer's claims are checked against
//! ([`FinalResult::check`](crate::final_result::FinalResult::check)).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::tool::{ToolOutcome, ToolOutput};

/// The calls of one run, oldest first: put one in the context of the run's calls
/// (`Context::with(RunHistory::new())`), and a registry built
/// [`with_run_history`](crate::RegistryBuilder::with_run_history) (or with a
/// [final result](crate::RegistryBuilder::with_final_result), whose check reads it)
/// records each call it answers (dispatched alone or in a batch, or resumed after
/// approval) with its arguments and outcome. A registry without either asks for none:
/// its calls pay nothing for it. Bounded: the oldest are dropped past [`RunHistory::keeping`]'s count (1,000
/// by default); outputs are kept whole, as the tool returned them.
///
/// ```
/// # use toolwright::{tool, Context, Registry, ToolCall};
/// # use toolwright::final_result::RunHistory;
/// /// Say hello.
/// #[tool(effect = "read_only")]
/// fn hello(name: String) -> String { format!("Hello, {name}!") }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().with(Hello).with_run_history().build().unwrap();
/// let ctx = Context::new().with(RunHistory::new());
/// registry.dispatch(&ctx, ToolCall::new("1", "hello", r#"{"name": "Ada"}"#)).await;
/// let history = ctx.get::<RunHistory>().unwrap();
/// let last = history.last(|call| call.name == "hello").unwrap();
/// assert_eq!(last.arguments["name"], "Ada");
/// assert!(last.outcome.is_ok());
/// # });
/// ```
#[derive(Debug)]
pub struct RunHistory {
    calls: Mutex<VecDeque<Arc<RecordedCall>>>,
    keep: usize,
}

/// One call of a run, as the registry answered it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecordedCall {
    /// The call's id.
    pub call_id: String,
    /// The tool's name, as the call gave it.
    pub name: String,
    /// The arguments as sent (`null` where they were not JSON).
    pub arguments: Value,
    /// The effect the call had, once its arguments were read.
    pub effect: Option<Effect>,
    /// What the tool returned, or why there is nothing.
    pub outcome: Result<ToolOutput, ToolError>,
}

impl Default for RunHistory {
    fn default() -> Self {
        Self::keeping(1_000)
    }
}

impl RunHistory {
    /// An empty history keeping the last 1,000 calls.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty history keeping the last `calls` calls (at least one).
    pub fn keeping(calls: usize) -> Self {
        Self {
            calls: Mutex::new(VecDeque::new()),
            keep: calls.max(1),
        }
    }

    /// Every call kept, oldest first.
    pub fn calls(&self) -> Vec<Arc<RecordedCall>> {
        self.lock().iter().cloned().collect()
    }

    /// The latest call `matching` accepts.
    pub fn last(&self, matching: impl Fn(&RecordedCall) -> bool) -> Option<Arc<RecordedCall>> {
        self.lock()
            .iter()
            .rev()
            .find(|call| matching(call))
            .cloned()
    }

    /// How many calls are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn push(&self, call: RecordedCall) {
        let mut calls = self.lock();
        if calls.len() >= self.keep {
            calls.pop_front();
        }
        calls.push_back(Arc::new(call));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Arc<RecordedCall>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Records `result` (a call with `arguments`) in the run's history, when `on` (the
/// registry records histories) and `ctx` keeps one.
#[inline]
pub(crate) fn record(on: bool, ctx: &Context, arguments: &CallArguments, result: &ToolResult) {
    if on {
        push(
            ctx,
            &result.call_id,
            &result.name,
            arguments,
            result.effect,
            &result.outcome,
        );
    }
}

/// [`record`] for a call whose result is not made yet (the registry records histories).
pub(crate) fn record_parts(
    ctx: &Context,
    call: &ToolCall,
    effect: Option<Effect>,
    outcome: &ToolOutcome,
) {
    push(ctx, &call.id, &call.name, &call.arguments, effect, outcome);
}

fn push(
    ctx: &Context,
    call_id: &str,
    name: &str,
    arguments: &CallArguments,
    effect: Option<Effect>,
    outcome: &ToolOutcome,
) {
    if let Some(history) = ctx.get::<RunHistory>() {
        let arguments = match arguments {
            CallArguments::Json(json) => serde_json::from_str(json).unwrap_or(Value::Null),
            CallArguments::Value(value) => value.clone(),
        };
        history.push(RecordedCall {
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            arguments,
            effect,
            outcome: outcome.clone(),
        });
    }
}
