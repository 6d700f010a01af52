//! One program's run: compiled, then driven step by step. The interpreter stops at each
//! name it does not know (a tool's function, or nothing), each call of a tool's function
//! (recorded as a pending call), each reach for the operating system (refused) and each
//! wait for calls in flight (they are dispatched together, by effect); it ends with the
//! program's value or its exception.

use monty::{FunctionCall, MontyRun, ResolveFutures, RunProgress};
use monty_types::{
    CompileOptions, ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult,
    PrintWriter, ResourceLimits, ResourceTracker, StackFrame,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Code;
use super::values::{TOOL_ERROR_CLASSES, arguments_of, exception_of, result_of, to_json};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::error::{ErrorKind, ToolError};
use crate::registry::Registry;
use crate::spec::Via;
use crate::tool::{ToolOutcome, ToolOutput};

/// The file name tracebacks show.
const FILE: &str = "program.py";

/// What runs before the program, on its first line (so the program's own lines keep
/// their numbers once one is taken off each traceback frame).
fn prelude() -> String {
    format!("import asyncio; ToolError = {TOOL_ERROR_CLASSES}\n")
}

/// The call a run answers: where its nested calls' ids and keys come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Origin {
    /// The `run_code` call's id.
    pub(super) id: String,
    /// The `run_code` call's origin.
    pub(super) origin: Option<String>,
}

/// A call the program made, kept as data (to pause and resume).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct MadeCall {
    /// The interpreter's id of the call's future.
    pub(super) future: u32,
    pub(super) id: String,
    pub(super) tool: String,
    /// Kept as JSON text: the pause's format (postcard) reads no self-describing values.
    #[serde(with = "json_text")]
    pub(super) arguments: Value,
    pub(super) key: String,
}

/// A JSON value as its text, for formats that are not self-describing.
mod json_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::Value;

    pub(super) fn serialize<S: Serializer>(
        value: &Value,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.to_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Value, D::Error> {
        let text = String::deserialize(deserializer)?;
        serde_json::from_str(&text).map_err(serde::de::Error::custom)
    }
}

impl MadeCall {
    pub(super) fn to_call(&self, origin: &Origin) -> ToolCall {
        let mut call = ToolCall::new(self.id.clone(), self.tool.clone(), self.arguments.clone())
            .made_via(Via::Code)
            .with_idempotency_key(self.key.clone());
        call.origin.clone_from(&origin.origin);
        call
    }
}

/// What a run counts and keeps between its steps (and across a pause).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Tally {
    /// Calls the program made: the next call's number.
    pub(super) calls: usize,
    /// Calls made and not yet dispatched.
    pub(super) pending: Vec<MadeCall>,
    /// What the program printed.
    pub(super) printed: String,
    /// Results of dispatched calls not yet handed to the program: they go in one at a
    /// time (monty 0.0.23 stalls when two gathered coroutines' calls fail in one
    /// hand-over).
    pub(super) ready: Vec<(u32, Resolution)>,
}

/// A call's result as the program receives it: a value, or the exception it raises.
pub(super) type Resolution = Result<MontyObject, MontyException>;

/// A resolution as the interpreter takes it.
pub(super) fn handed(resolution: Resolution) -> ExtFunctionResult {
    match resolution {
        Ok(value) => ExtFunctionResult::Return(value),
        Err(exception) => ExtFunctionResult::Error(exception),
    }
}

/// One program's run.
pub(super) struct Run<'a> {
    pub(super) registry: &'a Registry,
    pub(super) ctx: &'a Context,
    pub(super) code: &'a Code,
    /// The `run_code` call (its result gets the ticket of a pause).
    pub(super) call: &'a ToolCall,
    pub(super) origin: Origin,
    pub(super) tally: Tally,
}

/// Where the interpreter stopped, or how it failed.
pub(super) type Step = Result<RunProgress, MontyException>;

/// How a run ended: with the program's outcome, or waiting for a person.
pub(super) enum Ended {
    Done(ToolOutcome),
    /// Boxed: the interpreter's state is a kilobyte, and rare.
    Asking(Box<Asking>),
}

/// A run stopped because a call the program made needs a person's approval: the
/// interpreter waiting for a batch, the batch's calls and their results.
pub(super) struct Asking {
    pub(super) waiting: ResolveFutures,
    pub(super) due: Vec<MadeCall>,
    pub(super) results: Vec<ToolResult>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        registry: &'a Registry,
        ctx: &'a Context,
        code: &'a Code,
        call: &'a ToolCall,
        origin: Origin,
    ) -> Self {
        Self {
            registry,
            ctx,
            code,
            call,
            origin,
            tally: Tally::default(),
        }
    }

    /// Compiles and runs `program` to its end, or to a pause.
    pub(super) async fn program(&mut self, program: String) -> Ended {
        let limits = &self.code.mode.limits;
        if program.len() > limits.program_bytes {
            return Ended::Done(Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "the program is {} bytes; programs are limited to {}",
                    program.len(),
                    limits.program_bytes
                ),
            )
            .with_hint("write a shorter program: let the tools do the work")));
        }
        let runner = match MontyRun::new(
            prelude() + &program,
            FILE,
            Vec::new(),
            CompileOptions::default(),
        ) {
            Ok(runner) => runner,
            Err(exception) => {
                return Ended::Done(Err(ToolError::new(
                    ErrorKind::InvalidArguments,
                    format!("the program does not compile:\n{}", shown(&exception)),
                )
                .with_hint("fix the program and run it again")));
            }
        };
        let tracker = ResourceTracker::new(ResourceLimits {
            max_duration: Some(limits.cpu_time),
            max_memory: Some(limits.memory),
            gc_interval: None,
            max_recursion_depth: limits.recursion_depth,
            // Every tool call suspends the interpreter three times (the name, the call,
            // the wait); the tool-call limit is enforced here, this is the backstop.
            max_suspensions: limits.tool_calls.saturating_mul(3).saturating_add(64),
        });
        let step = runner.start(Vec::new(), tracker, self.print());
        self.drive(step).await
    }

    /// Where `print` writes: the run's buffer, up to the limit.
    pub(super) fn print(&mut self) -> PrintWriter<'_> {
        let limit = self.code.mode.limits.printed_bytes;
        PrintWriter::CollectString(&mut self.tally.printed, Some(limit))
    }

    /// Drives the interpreter from `step` to the program's end (or a pause).
    pub(super) async fn drive(&mut self, mut step: Step) -> Ended {
        loop {
            let progress = match step {
                Ok(progress) => progress,
                Err(exception) => return Ended::Done(Err(self.failure(&exception))),
            };
            step = match progress {
                RunProgress::Complete(value) => return Ended::Done(self.result(&value)),
                RunProgress::NameLookup(lookup) => {
                    let found = self.name(&lookup.name);
                    lookup.resume(found, self.print())
                }
                RunProgress::FunctionCall(call) => self.call(call),
                RunProgress::OsCall(os) => {
                    let refusal = MontyException::new(
                        ExcType::PermissionError,
                        Some(format!(
                            "the sandbox has no {}: programs reach the outside only through the tools' functions",
                            os_word(&format!("{:?}", os.function_call))
                        )),
                    );
                    os.resume(ExtFunctionResult::Error(refusal), self.print())
                }
                RunProgress::ResolveFutures(waiting) => match self.dispatch(waiting).await {
                    Ok(step) => step,
                    Err(asking) => return Ended::Asking(Box::new(asking)),
                },
            };
        }
    }

    /// What a name the program uses and does not define is: a tool's function when
    /// the tool is offered to programs and to this caller, else undefined (`NameError`).
    fn name(&self, name: &str) -> NameLookupResult {
        match self.code.stubs.function(name) {
            Some(function) if self.registry.lookup(Some(self.ctx), &function.name).is_ok() => {
                NameLookupResult::Value(MontyObject::Function {
                    name: function.ident.clone(),
                    docstring: None,
                })
            }
            _ => NameLookupResult::Undefined,
        }
    }

    /// A call of a tool's function: recorded, and a future handed to the program
    /// (dispatched once the program waits for it). A call that cannot be made raises in
    /// the program; one over the limit ends it.
    fn call(&mut self, call: FunctionCall) -> Step {
        let function = match self.code.stubs.function(&call.function_name) {
            Some(function) if call.object_id.is_none() => function,
            _ => {
                let refusal = MontyException::new(
                    ExcType::NameError,
                    Some(format!("'{}' is not a tool's function", call.function_name)),
                );
                return call.resume(ExtFunctionResult::Error(refusal), self.print());
            }
        };
        let limit = self.code.mode.limits.tool_calls;
        if self.tally.calls >= limit {
            let stop = MontyException::new(
                ExcType::RuntimeError,
                Some(format!(
                    "the program made more than {limit} tool calls, the limit of one run"
                )),
            );
            return call.abort(stop, self.print());
        }
        let arguments = match arguments_of(function, &call.args, &call.kwargs) {
            Ok(arguments) => arguments,
            Err(refusal) => return call.resume(ExtFunctionResult::Error(refusal), self.print()),
        };
        let number = self.tally.calls;
        self.tally.calls += 1;
        let id = format!("{}/{number}", self.origin.id);
        // The run's call number keys the call: a retried or resumed run makes its n-th
        // call with the n-th key, so a call with effects happens once however often the
        // run is replayed (another call with that key is a conflict, never a second run).
        let key = format!(
            "code:{}:{}",
            self.origin.origin.as_deref().unwrap_or(""),
            id
        );
        self.tally.pending.push(MadeCall {
            future: call.call_id,
            id,
            tool: function.name.clone(),
            arguments,
            key,
        });
        call.resume_pending(self.print())
    }

    /// The calls the program waits for, dispatched together (reads at once, writes one
    /// by one: the registry's scheduler), and their results handed back. `Err` ends the
    /// run here: a call needs a person's approval, and the program pauses.
    async fn dispatch(&mut self, waiting: ResolveFutures) -> Result<Step, Asking> {
        let ids = waiting.pending_call_ids().to_vec();
        if self
            .tally
            .ready
            .iter()
            .all(|(future, _)| !ids.contains(future))
        {
            let (due, later): (Vec<MadeCall>, Vec<MadeCall>) =
                std::mem::take(&mut self.tally.pending)
                    .into_iter()
                    .partition(|made| ids.contains(&made.future));
            self.tally.pending = later;
            let results = match &due[..] {
                // One call alone (a plain `await`): no batch to plan.
                [made] => vec![
                    self.registry
                        .dispatch(self.ctx, made.to_call(&self.origin))
                        .await,
                ],
                due => {
                    let calls = due.iter().map(|made| made.to_call(&self.origin)).collect();
                    self.registry.dispatch_batch(self.ctx, calls).await
                }
            };
            if results.iter().any(|result| result.ticket.is_some()) {
                return Err(Asking {
                    waiting,
                    due,
                    results,
                });
            }
            for (made, result) in due.iter().zip(&results) {
                let resolution = self.resolution(result);
                self.tally.ready.push((made.future, resolution));
            }
        }
        Ok(self.hand_over(waiting))
    }

    /// Hands the program the first ready result it waits for.
    pub(super) fn hand_over(&mut self, waiting: ResolveFutures) -> Step {
        let ids = waiting.pending_call_ids();
        let Some(index) = self
            .tally
            .ready
            .iter()
            .position(|(future, _)| ids.contains(future))
        else {
            return Err(MontyException::runtime_error(
                "the program waits for a call that was never made",
            ));
        };
        let (future, resolution) = self.tally.ready.remove(index);
        waiting.resume(vec![(future, handed(resolution))], self.print())
    }

    /// A call's result as the program receives it: its value, or the exception it raises.
    pub(super) fn resolution(&self, result: &ToolResult) -> Resolution {
        match &result.outcome {
            Ok(output) => {
                let typed = self
                    .registry
                    .get(&result.name)
                    .is_some_and(|tool| tool.spec().output_schema.is_some());
                Ok(result_of(output, typed))
            }
            Err(error) => Err(exception_of(error)),
        }
    }

    /// The program's value, and what it printed, for the model.
    fn result(&self, value: &MontyObject) -> ToolOutcome {
        let value = to_json(value).map_err(|why| {
            ToolError::new(
                ErrorKind::Failed,
                format!("the program's value cannot be sent back: {why}"),
            )
            .with_retryable(false)
            .with_hint("end the program with data: numbers, strings, lists, dicts")
        })?;
        Ok(if self.tally.printed.is_empty() {
            ToolOutput::from_value(value)
        } else {
            ToolOutput::Json(json!({ "result": value, "printed": self.tally.printed }))
        })
    }

    /// The error a program that raised ends with: its traceback, in the program's own
    /// line numbers, and what it printed before.
    fn failure(&self, exception: &MontyException) -> ToolError {
        let mut message = format!("the program stopped with an error:\n{}", shown(exception));
        if !self.tally.printed.is_empty() {
            message.push_str(&format!("\nIt printed before:\n{}", self.tally.printed));
        }
        let hint = match exception.exc_type() {
            ExcType::TimeoutError | ExcType::MemoryError | ExcType::RecursionError => {
                "the program reached a limit of the sandbox: do less in one program"
            }
            _ => {
                "fix the program and run it again; the tool calls it made before the error were made"
            }
        };
        ToolError::new(ErrorKind::Failed, message)
            .with_retryable(false)
            .with_hint(hint)
    }
}

/// An exception as Python shows it, each frame's line counted from the program's first
/// line (the prelude's is taken off).
fn shown(exception: &MontyException) -> String {
    let frames: Vec<StackFrame> = exception
        .traceback()
        .iter()
        .filter(|frame| frame.filename != FILE || frame.start.line > 1)
        .cloned()
        .map(|mut frame| {
            if frame.filename == FILE {
                frame.start.line -= 1;
                frame.end.line = frame.end.line.saturating_sub(1).max(1);
            }
            frame
        })
        .collect();
    MontyException::with_traceback(
        exception.exc_type(),
        exception.message().map(str::to_owned),
        frames,
    )
    .to_string()
}

/// What an operating-system call reaches for, in a word: `Getenv(...)` is the
/// environment, `Open(...)` a file.
fn os_word(call: &str) -> &'static str {
    let call = call.to_ascii_lowercase();
    if call.starts_with("getenv") || call.starts_with("environ") {
        "environment"
    } else if call.contains("socket") || call.contains("http") || call.contains("connect") {
        "network"
    } else {
        "filesystem"
    }
}
