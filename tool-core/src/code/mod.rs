//! Code as the action: the built-in `run_code` runs a short Python program the model
//! wrote against the tools' stubs, in monty (a Python-subset interpreter in pure Rust:
//! no CPython, no filesystem, network or environment), and only what the program
//! returns and prints goes back to the model.
//!
//! The sandbox reaches the host through one door: a call of a tool's function, which
//! becomes a [`ToolCall`] through [`Registry::dispatch_batch`] with the
//! conversation's context, made [`Via::Code`], so it passes
//! every check a direct call does (arguments, callers, scopes, policy, approval,
//! idempotency, time limits, telemetry). Everything else the program reaches for (a
//! file, the environment, a name that is no tool) is refused in the sandbox.
//!
//! `run.rs` drives a program's run and answers its interpreter; `interpreter.rs` is
//! the exchange with the interpreter, in this process; `worker.rs` runs it in a worker
//! process instead; `isolation.rs` picks one; `values.rs` converts values across the edge; `printed.rs` keeps what
//! a program prints; `pause.rs` keeps a program waiting for a person's approval, and
//! resumes it.

mod interpreter;
mod isolation;
mod pause;
mod printed;
mod run;
mod values;
#[cfg(unix)]
mod worker;

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::ToolCall;
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::registry::Registry;
use crate::registry::extension::{Building, BuiltIn, Extension, Resumption};
use crate::spec::{ToolSpec, Via};
use crate::stubs::Stubs;
use crate::tool::{Arguments, Prepared, Tool, ToolFuture};

use run::{Origin, Run};

/// Code as the action, for [`RegistryBuilder::with_code_mode`](crate::RegistryBuilder::with_code_mode):
/// the built-in tool's name and the limits of each program it runs.
///
/// ```
/// # use toolwright::{tool, Registry};
/// # use toolwright::code::{CodeLimits, CodeMode};
/// /// Look up an invoice's amount.
/// #[tool(effect = "read_only")]
/// fn invoice_amount(id: String) -> u64 { id.len() as u64 * 100 }
///
/// let registry = Registry::builder()
///     .with(InvoiceAmount)
///     .with_code_mode(CodeMode::new().limits(CodeLimits::default().tool_calls(20)))
///     .build()
///     .unwrap();
/// assert!(registry.get("run_code").unwrap().spec().description.contains("async def invoice_amount(id: str) -> int:"));
/// ```
#[derive(Debug, Clone)]
pub struct CodeMode {
    name: String,
    limits: CodeLimits,
    isolation: Isolation,
}

/// Where programs run.
///
/// A program is untrusted code, and its interpreter is young: a bug in it, or a program
/// that finds one, must not take the host down. In worker processes (the default on Unix)
/// the kernel enforces [`CodeLimits::memory`] and the CPU time, and a crashed interpreter
/// ends only its run; in the host's process a fault in the interpreter is the host's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// Each run in a worker process of its own, started from the host's executable (a
    /// constructor that runs before `main` serves it; nothing to set up): an empty
    /// environment, no filesystem or network where Landlock is there to refuse them
    /// (Linux 5.13+; the interpreter has neither anyway), no core dumps, its address
    /// space limited to [`CodeLimits::memory`] more than the worker holds as it starts
    /// (`RLIMIT_AS`), and its CPU time to [`CodeLimits::cpu_time`] and two seconds more
    /// (`RLIMIT_CPU`). The interpreter's stops come to the host over a pipe and the host
    /// answers them, so every tool call still passes the host's gate. A program that
    /// allocates without bound, crashes the interpreter or stops answering ends its run
    /// with an error that says so; the next run gets a fresh worker. One worker is
    /// started ahead of the next run.
    Workers,
    /// In the host's process, on the calling thread: for tests and trusted programs. A
    /// value bigger than [`CodeLimits::memory`] is refused, but the program's total
    /// memory is not bounded (only its time is), and a fault in the interpreter is the
    /// host's.
    InProcess,
}

/// What one program may use. Reaching a limit ends the program with an error that names
/// the limit; the calls it made before stay made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeLimits {
    /// Wall time of the whole run, the tools' calls included (default 60 s): the
    /// `run_code` tool's time limit.
    pub wall_time: Duration,
    /// Time the interpreter itself runs, the tools' calls not counted (default 2 s): a
    /// loop that never ends stops here.
    pub cpu_time: Duration,
    /// Memory the program may use (default 64 MiB). Everywhere, one value bigger than
    /// this is refused before it is allocated (`"a" * 10**10`). In a worker process
    /// ([`Isolation::Workers`], the default) the kernel holds the whole program to it as
    /// well: the worker's address space may grow by this much and no more, and a
    /// program past it ends with `MemoryError` naming the limit, the host untouched. In
    /// process, the total is not bounded: `cpu_time` is what stops a program that
    /// allocates in small pieces. Nothing to install: no allocator to choose.
    pub memory: usize,
    /// Nested function calls (default 200).
    pub recursion_depth: usize,
    /// Tool calls one program may make (default 50).
    pub tool_calls: usize,
    /// Bytes of program (default 20,000).
    pub program_bytes: usize,
    /// Bytes of `print` output kept (default 20,000): past it, the head and the tail are
    /// kept with a marker in between that says how much was cut, and the program goes
    /// on. What the program returns is bounded by the tool's output budget, as any
    /// result.
    pub printed_bytes: usize,
}

setters!(CodeLimits {
    wall_time: Duration,
    cpu_time: Duration,
    memory: usize,
    recursion_depth: usize,
    tool_calls: usize,
    program_bytes: usize,
    printed_bytes: usize,
});

impl Default for CodeLimits {
    fn default() -> Self {
        Self {
            wall_time: Duration::from_secs(60),
            cpu_time: Duration::from_secs(2),
            memory: 64 << 20,
            recursion_depth: 200,
            tool_calls: 50,
            program_bytes: 20_000,
            printed_bytes: 20_000,
        }
    }
}

impl Default for CodeMode {
    fn default() -> Self {
        Self::new()
    }
}

impl CodeMode {
    /// `run_code`, with the default limits.
    pub fn new() -> Self {
        Self {
            name: "run_code".to_owned(),
            limits: CodeLimits::default(),
            isolation: if cfg!(unix) {
                Isolation::Workers
            } else {
                Isolation::InProcess
            },
        }
    }

    /// Where programs run (default [`Isolation::Workers`] on Unix, the only choice
    /// elsewhere being [`Isolation::InProcess`]: asked for workers there, programs run
    /// in process).
    pub fn isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = if cfg!(unix) {
            isolation
        } else {
            Isolation::InProcess
        };
        self
    }

    /// Names the built-in tool (default `run_code`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the limits of each program.
    pub fn limits(mut self, limits: CodeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The built-in tool's name.
    pub fn tool_name(&self) -> &str {
        &self.name
    }
}

/// Code mode as a registry's extension: the settings, the stubs of the tools offered to
/// programs (made at `build`), where programs run, and the tickets paused programs leave
/// for their `run_code` calls' results.
struct Code {
    pub(crate) mode: CodeMode,
    pub(crate) stubs: Stubs,
    /// The worker processes programs run in ([`Isolation::Workers`]).
    #[cfg(unix)]
    pub(super) pool: Option<worker::Pool>,
    left: pause::LeftTickets,
}

impl Code {
    fn new(mode: CodeMode) -> Self {
        Self {
            stubs: Stubs::new(std::iter::empty()),
            #[cfg(unix)]
            pool: (mode.isolation == Isolation::Workers).then(worker::Pool::new),
            mode,
            left: pause::LeftTickets::default(),
        }
    }
}

impl Extension for Code {
    fn origin(&self) -> &'static str {
        "RegistryBuilder::with_code_mode"
    }

    fn build(&mut self, building: &mut Building<'_>) -> Option<BuiltIn> {
        let offered: Vec<&ToolSpec> = (building.specs.iter().copied())
            .filter(|spec| spec.offered_via(Via::Code))
            .collect();
        self.stubs = Stubs::new(offered.iter().copied());
        let effect = offered
            .iter()
            .map(|spec| spec.effect)
            .max_by_key(|effect| effect.rank())
            .unwrap_or(Effect::ReadOnly);
        let tool = RunCode {
            spec: spec_of(&self.mode, &self.stubs, effect),
            validator: Box::leak(Box::default()),
        };
        Some(BuiltIn {
            tool: Arc::new(tool),
            settings: crate::ToolSettings::new()
                .policy(crate::policy::AllowAll)
                .timeout(self.mode.limits.wall_time),
        })
    }

    fn run<'a>(
        &'a self,
        registry: &'a Registry,
        ctx: &'a Context,
        call: &'a ToolCall,
        args: Prepared,
    ) -> ToolFuture<'a> {
        let program = match args.downcast::<RunCodeArgs>() {
            Ok(args) => args.code,
            Err(error) => return ToolFuture::ready(Err(error)),
        };
        let origin = Origin {
            id: call.id.clone(),
            origin: call.origin.clone(),
        };
        let mut run = Run::new(registry, ctx, self, call, origin);
        ToolFuture::new(async move {
            let ended = run.program(program).await;
            pause::settle(&mut run, ended).await
        })
    }

    fn issues_tickets(&self) -> bool {
        true
    }

    fn resume<'a>(
        &'a self,
        registry: &'a Registry,
        ctx: &'a Context,
        ticket: &'a ApprovalTicket,
        decision: &'a ApprovalDecision,
    ) -> Resumption<'a> {
        Box::pin(pause::resume_paused(self, registry, ctx, ticket, decision))
    }

    fn left_ticket(&self, call: &ToolCall) -> Option<Box<ApprovalTicket>> {
        self.left.take(call)
    }
}

impl crate::RegistryBuilder {
    /// Offers the tools to programs as well: the built-in `run_code` (read-only when
    /// the tools programs may call are, else their riskiest effect) runs a Python
    /// program the model wrote against the stubs of the tools offered to code
    /// (`#[tool(callers)]`; read-only tools by default), in the monty interpreter, and
    /// every tool call the program makes goes through
    /// [`Registry::dispatch_batch`](crate::Registry::dispatch_batch) like a direct one.
    /// The policy does not ask about `run_code` itself (each call inside it is asked
    /// about) unless [`configure`](crate::RegistryBuilder::configure) gives it one; its
    /// time limit is [`CodeLimits::wall_time`]. A tool already named `run_code` is an
    /// error `build` reports.
    pub fn with_code_mode(self, mode: CodeMode) -> Self {
        // What the lint would say of the stubs, which are the description on purpose.
        let name = mode.name.clone();
        let tool = Some(name.as_str());
        self.allow_lint(
            "description-long",
            tool,
            "run_code's description is the Python stubs of every tool a program may call",
        )
        .allow_lint("description-markup", tool, "the stubs are a code block")
        .allow_lint(
            "description-duplicates-schema",
            tool,
            "each stub's docstring lists its arguments, as Python's do",
        )
        .allow_lint(
            "description-repeats-sentence",
            tool,
            "two tools' stubs may share a sentence of their docs",
        )
        .with_extension(Box::new(Code::new(mode)))
    }
}

/// The built-in tool's contract: a program, and the stubs it is written against in the
/// description.
fn spec_of(mode: &CodeMode, stubs: &Stubs, effect: Effect) -> ToolSpec {
    let description = format!(
        "Run a Python program that calls the tools below; only what it returns and prints \
         comes back. Use it to chain calls, loop over results or aggregate them.\n\n\
         Each function is async: `await` it, or run several at once with \
         `await asyncio.gather(...)`. The program's last expression is the result. A call \
         that needs a person's approval pauses the program until they decide. The sandbox \
         runs a subset of Python: no class inheritance, files, network, environment or \
         imports but asyncio; at most {} tool calls.\n\n```python\n{}```",
        mode.limits.tool_calls,
        stubs.python()
    );
    let mut spec = ToolSpec::new(
        mode.name.clone(),
        description,
        json!({
            "type": "object",
            "properties": {
                "code": {
                    "description": "The program: Python, calling the tools' functions with `await`, ending with an expression whose value is the result.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": mode.limits.program_bytes,
                }
            },
            "required": ["code"],
            "additionalProperties": false,
        }),
        effect,
    );
    spec.title = Some("Run code".to_owned());
    spec.callers = crate::spec::Callers::Direct;
    spec
}

/// `run_code`'s arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunCodeArgs {
    pub(crate) code: String,
}

/// The built-in tool: its contract, and its arguments read. It runs only through its
/// registry (`Code::run`).
struct RunCode {
    spec: ToolSpec,
    /// The schema's validator, for the slow path's problems. Leaked, once per registry
    /// built with code mode: `prepare` takes a `'static` one, and the schema (its
    /// `maxLength`) is this registry's.
    validator: &'static std::sync::OnceLock<crate::validate::Validator>,
}

impl Tool for RunCode {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        // The program's length is checked when it runs, with the limit in the message.
        crate::private::prepare::<RunCodeArgs>(&self.spec, self.validator, args, |args| {
            !args.code.is_empty()
        })
    }

    fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
        ToolFuture::ready(Err(ToolError::internal(format!(
            "{} runs only through the registry it belongs to",
            self.spec.name
        ))
        .with_retryable(false)))
    }
}
