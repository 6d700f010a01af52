//! One program's run: compiled, then driven step by step.
//!
//! A tool's function is a plain Python function the prelude defines: calling it records
//! the call at once (`__tool_made`: its signature checked, its number taken) and hands
//! back a coroutine; awaiting that coroutine asks for the call's result (`__tool_run`).
//! The interpreter stops at each of the two, at each reach for the operating system
//! (refused) and at each wait for calls in flight: the calls awaited are dispatched
//! together, by effect. A call made and never awaited never runs, and the run ends with
//! an error that says so, never a silent success. It ends with the program's value or
//! its exception.

use monty_types::{ExcType, MontyException, MontyObject, StackFrame};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Code;
use super::interpreter::{Answer, Budget, Called, FILE, Stop};
use super::isolation::Interpreter;
use super::printed::Printed;
use super::values::{TOOL_ERROR_CLASSES, arguments_of, exception_of, result_of, to_json};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::error::{ErrorKind, ToolError};
use crate::registry::Registry;
use crate::spec::Via;
use crate::tool::{ToolOutcome, ToolOutput};

/// The host function a tool's function calls to record a call: `(ident, args, kwargs)`
/// to the call's number.
const MADE: &str = "__tool_made";
/// The host function a tool's coroutine awaits: a call's number to its result.
const RUN: &str = "__tool_run";

/// What runs before the program: `ToolError`, then a function per tool the program
/// names and may call (each on one line, so a traceback's prelude frames are the lines
/// before the program's first).
fn prelude(functions: impl Iterator<Item = String>) -> String {
    let mut prelude = format!(
        "import asyncio; ToolError = {TOOL_ERROR_CLASSES}\n\
         async def __tool_wait(n): return await {RUN}(n)\n"
    );
    for ident in functions {
        prelude.push_str(&format!(
            "def {ident}(*args, **kwargs): return __tool_wait({MADE}('{ident}', args, kwargs))\n"
        ));
    }
    prelude
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
    /// The call's number in the run.
    pub(super) number: usize,
    /// The interpreter's id of the call's future, once the program awaits the call.
    pub(super) future: Option<u32>,
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
    /// Calls made and not yet dispatched: awaited (with a future) or not yet.
    pub(super) pending: Vec<MadeCall>,
    /// The prelude's lines: a traceback's frames in them are the prelude's.
    pub(super) prelude: u32,
    /// What the program printed, head and tail.
    pub(super) printed: Printed,
    /// Results of dispatched calls not yet handed to the program: they go in one at a
    /// time (monty 0.0.23 stalls when two gathered coroutines' calls fail in one
    /// hand-over).
    pub(super) ready: Vec<(u32, Resolution)>,
}

/// A call's result as the program receives it: a value, or the exception it raises.
pub(super) type Resolution = Result<MontyObject, MontyException>;

/// One program's run.
pub(super) struct Run<'a> {
    pub(super) registry: &'a Registry,
    pub(super) ctx: &'a Context,
    pub(super) code: &'a Code,
    /// The `run_code` call (its result gets the ticket of a pause).
    pub(super) call: &'a ToolCall,
    pub(super) origin: Origin,
    pub(super) tally: Tally,
    /// The program's interpreter, once it started.
    pub(super) interpreter: Option<Interpreter>,
}

/// How a run ended: with the program's outcome, or waiting for a person.
pub(super) enum Ended {
    Done(ToolOutcome),
    /// Boxed: the interpreter's state is a kilobyte, and rare.
    Asking(Box<Asking>),
}

/// A run stopped because a call the program made needs a person's approval (the
/// interpreter waits for a batch): the batch's calls and their results.
pub(super) struct Asking {
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
            tally: Tally {
                calls: 0,
                pending: Vec::new(),
                prelude: 0,
                printed: Printed::new(code.mode.limits.printed_bytes),
                ready: Vec::new(),
            },
            interpreter: None,
        }
    }

    /// What the interpreter may use.
    pub(super) fn budget(&self) -> Budget {
        let limits = &self.code.mode.limits;
        Budget {
            cpu_time: limits.cpu_time,
            memory: limits.memory,
            recursion_depth: limits.recursion_depth,
            tool_calls: limits.tool_calls,
            printed_bytes: limits.printed_bytes,
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
        // A function for each tool the program names and this caller may call; any
        // other name it does not define is a `NameError`.
        let functions = self.code.stubs.functions().filter(|function| {
            mentions(&program, &function.ident)
                && self.registry.lookup(Some(self.ctx), &function.name).is_ok()
        });
        let prelude = prelude(functions.map(|function| function.ident.clone()));
        self.tally.prelude = u32::try_from(prelude.lines().count()).unwrap_or(u32::MAX);
        let budget = self.budget();
        let (interpreter, stop) = Interpreter::start(
            self.code,
            prelude + &program,
            &budget,
            &mut self.tally.printed,
        );
        self.interpreter = Some(interpreter);
        if let Stop::Uncompiled(exception) = &stop {
            return Ended::Done(Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "the program does not compile:\n{}",
                    shown(exception, self.tally.prelude)
                ),
            )
            .with_hint("fix the program and run it again")));
        }
        self.drive(stop).await
    }

    /// Drives the interpreter from `stop` to the program's end (or a pause).
    pub(super) async fn drive(&mut self, mut stop: Stop) -> Ended {
        loop {
            let answer = match stop {
                Stop::Failed(exception) | Stop::Uncompiled(exception) => {
                    return Ended::Done(Err(self.failure(&exception)));
                }
                Stop::Done(value) => {
                    return Ended::Done(match self.never_awaited() {
                        Some(error) => Err(error),
                        None => self.result(&value),
                    });
                }
                Stop::Name(name) => Answer::Name(Self::name(&name)),
                Stop::Call(call) => self.call(call),
                Stop::Os(what) => Answer::Return(Err(MontyException::new(
                    ExcType::PermissionError,
                    Some(format!(
                        "the sandbox has no {}: programs reach the outside only through the tools' functions",
                        os_word(&what)
                    )),
                ))),
                Stop::Wait(ids) => match self.dispatch(&ids).await {
                    Ok(answer) => answer,
                    Err(asking) => return Ended::Asking(Box::new(asking)),
                },
            };
            let Some(interpreter) = self.interpreter.as_mut() else {
                return Ended::Done(Err(ToolError::internal("a run without its interpreter")));
            };
            stop = interpreter.step(answer, &mut self.tally.printed);
        }
    }

    /// What a name the program uses and does not define is: one of the host functions
    /// the prelude calls, else undefined (`NameError`).
    fn name(name: &str) -> Option<MontyObject> {
        match name {
            MADE | RUN => Some(MontyObject::Function {
                name: name.to_owned(),
                docstring: None,
            }),
            _ => None,
        }
    }

    /// A call of one of the host functions the prelude calls.
    fn call(&mut self, call: Called) -> Answer {
        let name = call.function.as_str();
        if !call.method && name == MADE {
            self.made(call)
        } else if !call.method && name == RUN {
            self.awaited(&call)
        } else {
            Answer::Return(Err(MontyException::new(
                ExcType::NameError,
                Some(format!("'{name}' is not a tool's function")),
            )))
        }
    }

    /// A call of a tool's function: recorded with its number, which the program's
    /// coroutine awaits. A call that cannot be made raises where it is made, and takes
    /// no number; one over the limit ends the run.
    fn made(&mut self, call: Called) -> Answer {
        let (function, args, kwargs) = match &call.args[..] {
            [
                MontyObject::String(ident),
                MontyObject::Tuple(args),
                MontyObject::Dict(kwargs),
            ] => match self.code.stubs.function(ident) {
                Some(function) if self.registry.lookup(Some(self.ctx), &function.name).is_ok() => {
                    (function, args, kwargs)
                }
                _ => {
                    return Answer::Return(Err(MontyException::new(
                        ExcType::NameError,
                        Some(format!("'{ident}' is not a tool's function")),
                    )));
                }
            },
            _ => {
                return Answer::Return(Err(MontyException::new(
                    ExcType::TypeError,
                    Some(format!(
                        "{MADE}() is the tools' own: call the tool's function"
                    )),
                )));
            }
        };
        let limit = self.code.mode.limits.tool_calls;
        if self.tally.calls >= limit {
            return Answer::Abort(MontyException::new(
                ExcType::RuntimeError,
                Some(format!(
                    "the program made more than {limit} tool calls, the limit of one run"
                )),
            ));
        }
        let arguments = match arguments_of(function, args, kwargs) {
            Ok(arguments) => arguments,
            Err((read, problems)) => {
                return Answer::Return(Err(exception_of(&self.misfit(function, &read, problems))));
            }
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
            number,
            future: None,
            id,
            tool: function.name.clone(),
            arguments,
            key,
        });
        Answer::Return(Ok(MontyObject::Int(
            i64::try_from(number).unwrap_or(i64::MAX),
        )))
    }

    /// The program awaits a call it made: the call gets a future, dispatched once the
    /// program waits for it.
    fn awaited(&mut self, call: &Called) -> Answer {
        let waiting = match &call.args[..] {
            [MontyObject::Int(number)] => self.tally.pending.iter_mut().find(|made| {
                made.future.is_none() && i64::try_from(made.number).ok() == Some(*number)
            }),
            _ => None,
        };
        let Some(made) = waiting else {
            return Answer::Return(Err(MontyException::new(
                ExcType::RuntimeError,
                Some(format!(
                    "{RUN}() is the tools' own: await the coroutine a tool's function returns"
                )),
            )));
        };
        made.future = Some(call.id);
        Answer::Pending
    }

    /// The calls the program waits for, dispatched together (reads at once, writes one
    /// by one: the registry's scheduler), and their results handed back. `Err` ends the
    /// run here: a call needs a person's approval, and the program pauses.
    async fn dispatch(&mut self, ids: &[u32]) -> Result<Answer, Asking> {
        if self
            .tally
            .ready
            .iter()
            .all(|(future, _)| !ids.contains(future))
        {
            let (due, later): (Vec<MadeCall>, Vec<MadeCall>) =
                std::mem::take(&mut self.tally.pending)
                    .into_iter()
                    .partition(|made| made.future.is_some_and(|future| ids.contains(&future)));
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
                return Err(Asking { due, results });
            }
            for (made, result) in due.iter().zip(&results) {
                let resolution = self.resolution(result);
                self.tally
                    .ready
                    .push((made.future.unwrap_or(u32::MAX), resolution));
            }
        }
        Ok(self.hand_over(ids))
    }

    /// Hands the program the first ready result it waits for (of the futures `ids`).
    pub(super) fn hand_over(&mut self, ids: &[u32]) -> Answer {
        let Some(index) = self
            .tally
            .ready
            .iter()
            .position(|(future, _)| ids.contains(future))
        else {
            return Answer::Abort(MontyException::runtime_error(
                "the program waits for a call that was never made",
            ));
        };
        let (future, resolution) = self.tally.ready.remove(index);
        Answer::Resolve(vec![(future, resolution)])
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

    /// The gate's answer to a call that does not fit its function's signature, raised
    /// where the call is made (nothing is dispatched): the signature's problems, and
    /// what the tool's own validation says of the arguments that could be read.
    fn misfit(
        &self,
        function: &crate::stubs::Function,
        read: &Value,
        mut problems: Vec<crate::error::Problem>,
    ) -> ToolError {
        if let Ok(entry) = self.registry.lookup(Some(self.ctx), &function.name)
            && let Err(error) = entry.tool.prepare(crate::tool::Arguments::from(read))
        {
            problems.extend(error.problems);
        }
        let message = format!(
            "{}() was called with arguments that do not fit it, so it was not called",
            function.ident
        );
        ToolError::invalid_arguments(message, problems)
            .with_retryable(false)
            .with_hint(
                "call it as its stub in run_code's description says, fixing every problem listed",
            )
    }

    /// The error a program ends with when it made tool calls it never awaited: they did
    /// not run, and a model that forgot `await` must not believe they did.
    fn never_awaited(&self) -> Option<ToolError> {
        let pending: Vec<&MadeCall> = (self.tally.pending.iter())
            .filter(|made| made.future.is_none())
            .collect();
        let first = *pending.first()?;
        let ident = |made: &MadeCall| {
            self.code
                .stubs
                .python_ident(&made.tool)
                .unwrap_or(&made.tool)
                .to_owned()
        };
        let shown: Vec<String> = pending
            .iter()
            .take(5)
            .map(|made| format!("`{}`", shown_call(&ident(made), &made.arguments)))
            .collect();
        let more = match pending.len() {
            n if n > 5 => format!(" and {} more", n - 5),
            _ => String::new(),
        };
        let made = self.tally.calls - pending.len();
        let message = format!(
            "{}{more} {} never awaited: nothing ran for {}; write `await {}(...)` (or gather several with `await asyncio.gather(...)`). The program's other {made} call{} ran.",
            shown.join(", "),
            if pending.len() == 1 { "was" } else { "were" },
            if pending.len() == 1 { "it" } else { "them" },
            ident(first),
            if made == 1 { "" } else { "s" },
        );
        Some(
            ToolError::new(ErrorKind::InvalidArguments, message)
                .with_retryable(false)
                .with_hint("every tool function is async: a call without `await` only makes a coroutine; await each call whose result or effect you need"),
        )
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
            ToolOutput::Json(json!({ "result": value, "printed": self.tally.printed.text() }))
        })
    }

    /// The error a program that raised ends with: its traceback, in the program's own
    /// line numbers, and what it printed before.
    fn failure(&self, exception: &MontyException) -> ToolError {
        let mut message = format!(
            "the program stopped with an error:\n{}",
            shown(exception, self.tally.prelude)
        );
        if !self.tally.printed.is_empty() {
            message.push_str(&format!(
                "\nIt printed before:\n{}",
                self.tally.printed.text()
            ));
        }
        if let Some(unawaited) = self.never_awaited() {
            message.push_str(&format!("\nAlso: {}", unawaited.message));
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

/// A call as the program would write it, its arguments by keyword.
fn shown_call(ident: &str, arguments: &Value) -> String {
    let arguments = match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| format!("{key}={}", crate::stubs::python_literal(value)))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    let text = format!("{ident}({arguments})");
    if text.chars().count() > 120 {
        format!("{}...)", text.chars().take(116).collect::<String>())
    } else {
        text
    }
}

/// An exception as Python shows it, each frame's line counted from the program's first
/// line: the `prelude`'s lines are taken off, and its frames left out.
fn shown(exception: &MontyException, prelude: u32) -> String {
    let frames: Vec<StackFrame> = exception
        .traceback()
        .iter()
        .filter(|frame| frame.filename != FILE || frame.start.line > prelude)
        .cloned()
        .map(|mut frame| {
            if frame.filename == FILE {
                frame.start.line -= prelude;
                frame.end.line = frame.end.line.saturating_sub(prelude).max(1);
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

/// Whether `program` names `ident` (as a word: `pay` is not named by `repay`).
fn mentions(program: &str, ident: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    program.match_indices(ident).any(|(at, _)| {
        let before = program[..at].chars().next_back();
        let after = program[at + ident.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
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
