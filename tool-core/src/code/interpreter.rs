//! Where a program's interpreter lives, behind one exchange: it stops (`Stop`: a name it
//! does not know, a call of a host function, a reach for the operating system, a wait
//! for calls in flight, its end) and the run answers (`Answer`). The interpreter runs in
//! this process ([`Local`], here) or in a worker process (`worker.rs`; `isolation.rs`
//! picks one); the run that decides every answer, and so every call's gate, is the
//! host's either way.

use monty::{MontyRun, ResolveFutures, RunProgress};
use monty_types::{
    CompileOptions, ExtFunctionResult, MontyException, MontyObject, NameLookupResult, PrintWriter,
    ResourceLimits, ResourceTracker,
};
use serde::{Deserialize, Serialize};

use super::printed::Printed;

/// The file name tracebacks show.
pub(super) const FILE: &str = "program.py";

/// What one run's interpreter may use (the part of [`CodeLimits`](super::CodeLimits) it
/// enforces itself).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Budget {
    pub(super) cpu_time: std::time::Duration,
    pub(super) memory: usize,
    pub(super) recursion_depth: usize,
    pub(super) tool_calls: usize,
    pub(super) printed_bytes: usize,
}

impl Budget {
    fn tracker(&self) -> ResourceTracker {
        ResourceTracker::new(ResourceLimits {
            max_duration: Some(self.cpu_time),
            max_memory: Some(self.memory),
            gc_interval: None,
            max_recursion_depth: self.recursion_depth,
            // Every tool call suspends the interpreter three times (made, awaited,
            // waited for); the tool-call limit is enforced by the run, this is the
            // backstop.
            max_suspensions: self.tool_calls.saturating_mul(3).saturating_add(64),
        })
    }
}

/// Where the interpreter stopped.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Stop {
    /// A name the program uses and does not define.
    Name(String),
    /// A call of a host function.
    Call(Called),
    /// A reach for the operating system (what, in the interpreter's words).
    Os(String),
    /// Every task waits for calls in flight: the futures' ids.
    Wait(Vec<u32>),
    /// The program's value.
    Done(MontyObject),
    /// The exception the program ended with (or the interpreter's failure, as one).
    Failed(MontyException),
    /// The program does not compile: why.
    Uncompiled(MontyException),
}

/// A host function's call, as the interpreter made it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Called {
    pub(super) function: String,
    /// A method call on a host object (none is offered: refused).
    pub(super) method: bool,
    pub(super) args: Vec<MontyObject>,
    pub(super) kwargs: Vec<(MontyObject, MontyObject)>,
    /// The id of the call's future, should it get one.
    pub(super) id: u32,
}

/// The run's answer to a stop.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Answer {
    /// To a name: its value, or `None` for undefined (`NameError`).
    Name(Option<MontyObject>),
    /// To a call or an operating-system reach: its value, or the exception it raises.
    Return(Result<MontyObject, MontyException>),
    /// To a call: a future, its result handed over when the program waits for it.
    Pending,
    /// To a call: the program ends with this exception, uncatchable.
    Abort(MontyException),
    /// To a wait: results of futures it waits for.
    Resolve(Vec<(u32, Result<MontyObject, MontyException>)>),
}

/// A result as the interpreter takes it.
fn handed(result: Result<MontyObject, MontyException>) -> ExtFunctionResult {
    match result {
        Ok(value) => ExtFunctionResult::Return(value),
        Err(exception) => ExtFunctionResult::Error(exception),
    }
}

/// An interpreter in this process: where it stopped, held until answered.
pub(super) struct Local {
    held: Option<RunProgress>,
}

impl Local {
    /// Compiles `program` and runs it to its first stop.
    pub(super) fn start(program: String, budget: &Budget, printed: &mut Printed) -> (Self, Stop) {
        let mut local = Self { held: None };
        let runner = match MontyRun::new(program, FILE, Vec::new(), CompileOptions::default()) {
            Ok(runner) => runner,
            Err(exception) => return (local, Stop::Uncompiled(exception)),
        };
        let step = runner.start(Vec::new(), budget.tracker(), PrintWriter::Callback(printed));
        let stop = local.stopped(step);
        (local, stop)
    }

    /// A kept interpreter (`keep`'s bytes), waiting for calls in flight again.
    /// State that does not read back ends the run there.
    pub(super) fn resumed(kept: &[u8]) -> (Self, Stop) {
        let mut local = Self { held: None };
        let stop = match postcard::from_bytes::<ResolveFutures>(kept) {
            Ok(waiting) => local.stopped(Ok(RunProgress::ResolveFutures(waiting))),
            Err(error) => Stop::Failed(MontyException::runtime_error(format!(
                "the kept state does not read back: {error}"
            ))),
        };
        (local, stop)
    }

    /// Goes on from the stop held with `answer`, to the next stop.
    pub(super) fn step(&mut self, answer: Answer, printed: &mut Printed) -> Stop {
        let print = PrintWriter::Callback(printed);
        let step = match (self.held.take(), answer) {
            (Some(RunProgress::NameLookup(lookup)), Answer::Name(found)) => {
                let found = match found {
                    Some(value) => NameLookupResult::Value(value),
                    None => NameLookupResult::Undefined,
                };
                lookup.resume(found, print)
            }
            (Some(RunProgress::FunctionCall(call)), Answer::Return(result)) => {
                call.resume(handed(result), print)
            }
            (Some(RunProgress::FunctionCall(call)), Answer::Pending) => call.resume_pending(print),
            (Some(RunProgress::FunctionCall(call)), Answer::Abort(exception)) => {
                call.abort(exception, print)
            }
            (Some(RunProgress::OsCall(os)), Answer::Return(result)) => {
                os.resume(handed(result), print)
            }
            (Some(RunProgress::ResolveFutures(waiting)), Answer::Resolve(results)) => {
                let results = results
                    .into_iter()
                    .map(|(id, result)| (id, handed(result)))
                    .collect();
                waiting.resume(results, print)
            }
            (Some(RunProgress::NameLookup(lookup)), Answer::Abort(exception)) => {
                lookup.abort(exception, print)
            }
            (Some(RunProgress::OsCall(os)), Answer::Abort(exception)) => os.abort(exception, print),
            (Some(RunProgress::ResolveFutures(waiting)), Answer::Abort(exception)) => {
                waiting.abort(exception, print)
            }
            (_, answer) => Err(MontyException::runtime_error(format!(
                "the interpreter got an answer that does not fit where it stopped ({})",
                answer.word()
            ))),
        };
        self.stopped(step)
    }

    /// The interpreter waiting for calls in flight, as bytes to keep (for a pause).
    pub(super) fn keep(&self) -> Result<Vec<u8>, String> {
        match &self.held {
            Some(RunProgress::ResolveFutures(waiting)) => {
                postcard::to_allocvec(waiting).map_err(|error| error.to_string())
            }
            _ => Err("the interpreter is not waiting for calls".to_owned()),
        }
    }

    /// Holds where the interpreter stopped; says what the stop is.
    fn stopped(&mut self, step: Result<RunProgress, MontyException>) -> Stop {
        let progress = match step {
            Ok(progress) => progress,
            Err(exception) => return Stop::Failed(exception),
        };
        let (stop, held) = match progress {
            RunProgress::Complete(value) => return Stop::Done(value),
            RunProgress::NameLookup(lookup) => (
                Stop::Name(lookup.name.clone()),
                RunProgress::NameLookup(lookup),
            ),
            RunProgress::FunctionCall(mut call) => {
                // The arguments are the stop's: the held call resumes without them.
                let called = Called {
                    function: call.function_name.clone(),
                    method: call.object_id.is_some(),
                    args: std::mem::take(&mut call.args),
                    kwargs: std::mem::take(&mut call.kwargs),
                    id: call.call_id,
                };
                (Stop::Call(called), RunProgress::FunctionCall(call))
            }
            RunProgress::OsCall(os) => (
                Stop::Os(format!("{:?}", os.function_call)),
                RunProgress::OsCall(os),
            ),
            RunProgress::ResolveFutures(waiting) => (
                Stop::Wait(waiting.pending_call_ids().to_vec()),
                RunProgress::ResolveFutures(waiting),
            ),
        };
        self.held = Some(held);
        stop
    }
}

impl Answer {
    /// What kind of answer, in a word (for an answer that does not fit).
    fn word(&self) -> &'static str {
        match self {
            Answer::Name(_) => "a name's value",
            Answer::Return(_) => "a call's value",
            Answer::Pending => "a future",
            Answer::Abort(_) => "an abort",
            Answer::Resolve(_) => "futures' results",
        }
    }
}
