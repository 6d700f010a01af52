//! Programs in worker processes ([`Isolation::Workers`], the default): what would take
//! an in-process host down ends one run with an error that says what happened, within
//! the run's time limit and a second more. A program that allocates without bound (the
//! kernel's memory limit, not the host's RSS), one that overflows the interpreter's
//! stack, and a worker killed under a running program; each time the next run works.

use crate::support::block_on;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use toolwright::code::{CodeLimits, CodeMode, Isolation};
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolError, ToolResult, tool};

/// How often `count` ran.
#[derive(Default)]
struct Counted(AtomicU32);

/// Count one more.
#[tool(effect = "read_only")]
fn count(#[ctx] counted: &Counted) -> u32 {
    counted.0.fetch_add(1, Ordering::SeqCst) + 1
}

/// Kill the worker process of the run whose CPU limit is `seconds` (a test's way to
/// crash the worker under a running program, as the kernel's OOM killer would).
#[tool(effect = "read_only")]
fn kill_worker(
    /// The run's CPU time limit as the worker has it: its `cpu_time` and two seconds.
    seconds: u32,
) -> Result<String, ToolError> {
    let me = std::process::id();
    let tasks =
        std::fs::read_dir("/proc/self/task").map_err(|e| ToolError::failed(e.to_string()))?;
    let children: Vec<String> = tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok())
        .flat_map(|line| {
            line.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let wanted = format!("Max cpu time              {seconds}");
    for pid in children {
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
        if limits.contains(&wanted) {
            std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status()
                .map_err(|e| ToolError::failed(e.to_string()))?;
            return Ok(format!("killed {pid}, a child of {me}"));
        }
    }
    Err(ToolError::failed("no worker with that limit"))
}

fn registry(limits: CodeLimits, isolation: Isolation) -> Registry {
    Registry::builder()
        .with(Count)
        .with(KillWorker)
        .with_code_mode(CodeMode::new().limits(limits).isolation(isolation))
        .build()
        .unwrap()
}

fn run(registry: &Registry, ctx: &Context, program: &str) -> ToolResult {
    let call = ToolCall::new("w", "run_code", json!({ "code": program }));
    block_on(registry.dispatch(ctx, call))
}

fn failed(result: &ToolResult) -> &ToolError {
    match &result.outcome {
        Err(error) => error,
        Ok(output) => panic!("the run succeeded: {}", output.to_text()),
    }
}

/// The host's resident memory, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

/// The next run in the same registry works, and its nested call reaches the host.
fn next_run_works(registry: &Registry, ctx: &Context) {
    let before = ctx.get::<Counted>().unwrap().0.load(Ordering::SeqCst);
    let result = run(registry, ctx, "n = await count()\nn * 10");
    let output = result.outcome.as_ref().expect("the next run works");
    assert_eq!(output.to_text(), ((before + 1) * 10).to_string());
}

#[test]
fn a_program_that_allocates_without_bound_meets_the_memory_limit_not_the_host() {
    let memory = 256 << 20;
    let limits = CodeLimits::default()
        .memory(memory)
        .cpu_time(Duration::from_secs(10));
    let registry = registry(limits, Isolation::Workers);
    let ctx = Context::new().with(Counted::default());
    let before = rss();
    let started = Instant::now();
    let program = "n = await count()\nx = []\nwhile True:\n    x.append('a' * 1000 + str(len(x)))";
    let result = run(&registry, &ctx, program);
    let took = started.elapsed();
    let error = failed(&result);
    assert_eq!(error.kind, ErrorKind::Failed);
    assert!(
        error
            .message
            .contains("MemoryError: memory limit exceeded: the program used more than its 256 MiB")
            && error
                .message
                .contains("The host is unharmed; the tool calls the program made before ran."),
        "{}",
        error.message
    );
    assert!(
        error
            .hint
            .as_deref()
            .unwrap_or("")
            .contains("reached a limit of the sandbox"),
        "{:?}",
        error.hint
    );
    assert!(took < Duration::from_secs(11), "ended after {took:?}");
    let grew = rss().saturating_sub(before);
    assert!(grew < memory as u64, "the host grew by {} MiB", grew >> 20);
    next_run_works(&registry, &ctx);
}

#[test]
fn a_program_that_overflows_the_interpreters_stack_ends_its_run_only() {
    // An operator's recursion limit past what the stack holds, and a value nested
    // 200,000 deep shown as text: the interpreter recurses on its own stack for it.
    let limits = CodeLimits::default().recursion_depth(10_000_000);
    let registry = registry(limits, Isolation::Workers);
    let ctx = Context::new().with(Counted::default());
    let started = Instant::now();
    let program = "x = []\nfor i in range(200000):\n    x = [x]\nstr(x)";
    let result = run(&registry, &ctx, program);
    let error = failed(&result);
    assert!(
        error.message.contains("RecursionError: the program's interpreter crashed (killed by SIGSEGV (11)), as an overflow of its stack does: nest less deeply. The host is unharmed"),
        "{}",
        error.message
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    next_run_works(&registry, &ctx);
}

#[test]
fn a_worker_killed_under_a_running_program_ends_that_run_with_a_clear_error() {
    // A CPU limit no other test's worker has (7 s and two more), to find this one.
    let limits = CodeLimits::default().cpu_time(Duration::from_secs(7));
    let registry = registry(limits, Isolation::Workers);
    let ctx = Context::new().with(Counted::default());
    let started = Instant::now();
    let program = "await count()\nawait kill_worker(9)\nawait count()\n'never'";
    let result = run(&registry, &ctx, program);
    let error = failed(&result);
    assert!(
        error
            .message
            .contains("the program's interpreter ended unexpectedly (killed by SIGKILL (9))")
            && error.message.contains("The host is unharmed"),
        "{}",
        error.message
    );
    assert!(started.elapsed() < Duration::from_secs(8));
    // The calls before the kill ran, the one after it did not.
    assert_eq!(ctx.get::<Counted>().unwrap().0.load(Ordering::SeqCst), 1);
    next_run_works(&registry, &ctx);
}

#[test]
fn a_program_that_never_stops_is_stopped_by_its_worker_or_the_host() {
    let limits = CodeLimits::default().cpu_time(Duration::from_millis(500));
    let registry = registry(limits, Isolation::Workers);
    let ctx = Context::new().with(Counted::default());
    let started = Instant::now();
    let result = run(&registry, &ctx, "while True:\n    pass");
    let error = failed(&result);
    assert!(error.message.contains("TimeoutError"), "{}", error.message);
    assert!(started.elapsed() < Duration::from_millis(1500));
    next_run_works(&registry, &ctx);
}

#[test]
fn a_worker_has_no_environment_and_the_same_answers_as_in_process() {
    // SAFETY: the variable is this test's own; no other test reads it.
    unsafe { std::env::set_var("TOOLWRIGHT_TEST_CANARY", "canary-4721") };
    let program = "import os\nc = await count()\ntry:\n    e = os.getenv('TOOLWRIGHT_TEST_CANARY')\nexcept PermissionError as why:\n    e = str(why)\nprint('printed', c)\n[c, e]";
    let mut answers = Vec::new();
    for isolation in [Isolation::Workers, Isolation::InProcess] {
        let registry = registry(CodeLimits::default(), isolation);
        let ctx = Context::new().with(Counted::default());
        let result = run(&registry, &ctx, program);
        let text = result.outcome.as_ref().expect("the run works").to_text();
        assert!(!text.contains("canary-4721"), "{text}");
        answers.push(text);
    }
    assert_eq!(answers[0], answers[1]);
    assert!(answers[0].contains("printed 1"), "{}", answers[0]);
}
