//! Programs in worker processes: the interpreter runs in a process of its own, started
//! from the host's own executable (a constructor that runs before `main` turns it into a
//! worker when `TOOLWRIGHT_CODE_WORKER` is set), with an empty environment, no
//! filesystem or network (Landlock, where the kernel has it), no core dumps, three file
//! descriptors, and the run's memory (`RLIMIT_AS`) and CPU time (`RLIMIT_CPU`) limits set
//! by the kernel. A program that allocates without bound, overflows the interpreter's
//! stack or crashes it ends its run with an error that says so; the host goes on.
//!
//! The worker holds the interpreter and nothing else: each stop comes to the host over a
//! pipe, and the host's run answers it (every tool call passes the host's gate). A worker
//! serves one run and is stopped after it (no program sees what another left in
//! memory); the pool keeps one started ahead so a run does not wait for a process start.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use monty_types::{ExcType, MontyException};
use serde::{Deserialize, Serialize};

use super::interpreter::{Answer, Budget, Local, Stop};
use super::printed::Printed;

/// The variable that makes the host's executable a worker.
const WORKER_VAR: &str = "TOOLWRIGHT_CODE_WORKER";

/// The most a worker may send in one message: a bigger one is a broken worker's.
const MESSAGE_LIMIT: usize = 256 << 20;

/// What the host sends a worker.
#[derive(Serialize, Deserialize)]
enum ToWorker {
    /// Compile and run a program (the prelude included) to its first stop.
    Start { program: String, budget: Budget },
    /// Go on with a kept interpreter (a paused program), waiting for calls.
    Resume { kept: Vec<u8>, budget: Budget },
    /// The answer to the last stop.
    Answer(Answer),
    /// Send the interpreter waiting for calls, to keep (the program pauses).
    Keep,
}

/// What a worker sends the host.
#[derive(Serialize, Deserialize)]
enum FromWorker {
    /// The worker is up (its first message): what confines it.
    Ready { confined: String },
    /// Where the interpreter stopped, and what the program printed since the last stop.
    Stopped { stop: Stop, printed: String },
    /// The kept interpreter.
    Kept(Result<Vec<u8>, String>),
}

/// Workers started ahead of the runs that will use them.
pub(crate) struct Pool {
    ready: Mutex<Vec<Worker>>,
}

impl Pool {
    pub(super) fn new() -> Self {
        Self {
            ready: Mutex::new(Vec::new()),
        }
    }

    /// A started worker for one run, and another started for the next.
    fn take(&self) -> std::io::Result<Worker> {
        let ready = self
            .ready
            .lock()
            .map(|mut ready| ready.pop())
            .ok()
            .flatten();
        let mut worker = match ready.map(|mut worker| (worker.alive(), worker)) {
            Some((true, worker)) => worker,
            _ => Worker::start()?,
        };
        worker.ready()?;
        if let (Ok(next), Ok(mut ready)) = (Worker::start(), self.ready.lock()) {
            ready.push(next);
        }
        Ok(worker)
    }

    /// Runs `program` in a worker, to its first stop.
    pub(super) fn start(
        &self,
        program: String,
        budget: &Budget,
        printed: &mut Printed,
    ) -> (Remote, Stop) {
        self.begin(
            ToWorker::Start {
                program,
                budget: budget.clone(),
            },
            budget,
            printed,
        )
    }

    /// Goes on with a kept interpreter in a worker.
    pub(super) fn resumed(
        &self,
        kept: Vec<u8>,
        budget: &Budget,
        printed: &mut Printed,
    ) -> (Remote, Stop) {
        self.begin(
            ToWorker::Resume {
                kept,
                budget: budget.clone(),
            },
            budget,
            printed,
        )
    }

    fn begin(&self, first: ToWorker, budget: &Budget, printed: &mut Printed) -> (Remote, Stop) {
        let mut remote = Remote {
            worker: None,
            budget: budget.clone(),
        };
        match self.take() {
            Ok(worker) => {
                remote.worker = Some(worker);
                let stop = remote.exchange(&first, printed);
                (remote, stop)
            }
            Err(error) => (
                remote,
                Stop::Failed(MontyException::new(
                    ExcType::RuntimeError,
                    Some(format!(
                        "no worker process could be started to run the program: {error}"
                    )),
                )),
            ),
        }
    }
}

/// A run's worker: gone once it failed.
pub(super) struct Remote {
    worker: Option<Worker>,
    budget: Budget,
}

impl Remote {
    /// Goes on from the last stop with `answer`, to the next stop.
    pub(super) fn step(&mut self, answer: Answer, printed: &mut Printed) -> Stop {
        self.exchange(&ToWorker::Answer(answer), printed)
    }

    /// The interpreter waiting for calls, as bytes to keep.
    pub(super) fn keep(&mut self) -> Result<Vec<u8>, String> {
        let worker = self.worker.as_mut().ok_or("the worker is gone")?;
        match worker.ask(&ToWorker::Keep, self.budget.cpu_time) {
            Ok(FromWorker::Kept(kept)) => kept,
            Ok(_) => Err("the worker answered out of turn".to_owned()),
            Err(gone) => Err(gone.exception(&self.budget).to_string()),
        }
    }

    fn exchange(&mut self, message: &ToWorker, printed: &mut Printed) -> Stop {
        let Some(worker) = self.worker.as_mut() else {
            return Stop::Failed(MontyException::runtime_error(
                "the program's worker is gone",
            ));
        };
        match worker.ask(message, self.budget.cpu_time) {
            Ok(FromWorker::Stopped {
                stop,
                printed: text,
            }) => {
                printed.push(&text);
                stop
            }
            Ok(_) => {
                self.worker = None;
                Stop::Failed(MontyException::runtime_error(
                    "the worker answered out of turn",
                ))
            }
            Err(gone) => {
                self.worker = None;
                Stop::Failed(gone.exception(&self.budget))
            }
        }
    }
}

/// How a worker was lost.
enum Gone {
    /// It did not answer within the time limit (and one second more): it was stopped.
    Late,
    /// It ended: its status, and the end of what it wrote to stderr.
    Ended(String, String),
    /// It sent what is not a message.
    Broken(String),
}

impl Gone {
    /// The failure a program whose worker was lost ends with.
    fn exception(&self, budget: &Budget) -> MontyException {
        let mib = budget.memory >> 20;
        let (class, what) = match self {
            Gone::Late => (
                ExcType::TimeoutError,
                format!(
                    "time limit exceeded: the program's interpreter did not stop within its time limit ({} ms) and one second more, so its worker process was stopped",
                    budget.cpu_time.as_millis()
                ),
            ),
            Gone::Ended(status, stderr) if stderr.contains("memory allocation of") => (
                ExcType::MemoryError,
                format!(
                    "memory limit exceeded: the program used more than its {mib} MiB, so its worker process ended ({status})"
                ),
            ),
            Gone::Ended(status, _) if status.contains("SIGXCPU") => (
                ExcType::TimeoutError,
                format!(
                    "time limit exceeded: the program's worker process used more than its CPU time ({status})"
                ),
            ),
            Gone::Ended(status, _) if status.contains("SIGSEGV") || status.contains("SIGBUS") => (
                ExcType::RecursionError,
                format!(
                    "the program's interpreter crashed ({status}), as an overflow of its stack does: nest less deeply"
                ),
            ),
            Gone::Ended(status, stderr) => (
                ExcType::RuntimeError,
                format!(
                    "the program's interpreter ended unexpectedly ({status}){}",
                    match stderr.lines().last() {
                        Some(line) => format!(": {line}"),
                        None => String::new(),
                    }
                ),
            ),
            Gone::Broken(why) => (
                ExcType::RuntimeError,
                format!(
                    "the program's worker process sent what is not a message ({why}), so it was stopped"
                ),
            ),
        };
        MontyException::new(
            class,
            Some(format!(
                "{what}. The host is unharmed; the tool calls the program made before ran."
            )),
        )
    }
}

/// A worker process, started and waiting for its run.
struct Worker {
    child: Child,
    /// The worker's input: closed, it ends.
    to: Option<ChildStdin>,
    /// The worker's messages, read by a thread of their own (so a wait can time out).
    from: Receiver<std::io::Result<Vec<u8>>>,
}

impl Worker {
    /// Starts a worker from the host's own executable, its environment emptied.
    fn start() -> std::io::Result<Self> {
        // The constructor that serves must be linked into the executable: named here,
        // its object is.
        std::hint::black_box(serve_if_worker as fn());
        // The executable's path; where it was replaced or removed since (an upgrade),
        // the running one's image, through `/proc`.
        let exe = match std::env::current_exe() {
            Ok(path) if path.exists() => path,
            _ if cfg!(target_os = "linux") => std::path::PathBuf::from("/proc/self/exe"),
            other => other?,
        };
        let mut child = Command::new(exe)
            .env_clear()
            .env(WORKER_VAR, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(to), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(std::io::Error::other("the worker's pipes were not made"));
        };
        let (send, from) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("toolwright-code-worker".to_owned())
            .spawn(move || {
                loop {
                    let frame = read_frame(&mut stdout);
                    let last = frame.is_err();
                    if send.send(frame).is_err() || last {
                        break;
                    }
                }
            })?;
        Ok(Self {
            child,
            to: Some(to),
            from,
        })
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the worker's first message (at once for one started ahead).
    fn ready(&mut self) -> std::io::Result<()> {
        let first = self.from.recv_timeout(Duration::from_secs(10));
        match first.map(|frame| frame.map(|frame| postcard::from_bytes::<FromWorker>(&frame))) {
            Ok(Ok(Ok(FromWorker::Ready { confined }))) => {
                tracing::debug!(confined, "a code-mode worker started");
                Ok(())
            }
            _ => {
                self.stop();
                Err(std::io::Error::other(
                    "the executable did not start as a worker (a host that is not a Rust \
                     executable linking toolwright with `code`, such as a library loaded by \
                     another program, cannot start workers: use Isolation::InProcess)",
                ))
            }
        }
    }

    /// Sends `message` and waits for the answer, at most `time` and a second more.
    fn ask(&mut self, message: &ToWorker, time: Duration) -> Result<FromWorker, Gone> {
        let bytes = postcard::to_allocvec(message).map_err(|e| Gone::Broken(e.to_string()))?;
        let Some(to) = self.to.as_mut() else {
            return Err(self.ended());
        };
        if write_frame(to, &bytes).is_err() {
            return Err(self.ended());
        }
        match self.from.recv_timeout(time + Duration::from_secs(1)) {
            Ok(Ok(frame)) => postcard::from_bytes(&frame).map_err(|error| {
                self.stop();
                Gone::Broken(error.to_string())
            }),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(self.ended()),
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                Err(Gone::Late)
            }
        }
    }

    /// How the worker ended (it did, or it is stopped now).
    fn ended(&mut self) -> Gone {
        let status = match self.child.wait_timeout_or_kill() {
            Ok(status) => shown_status(&status),
            Err(error) => error.to_string(),
        };
        let mut stderr = String::new();
        if let Some(pipe) = self.child.stderr.as_mut() {
            let _ = pipe.take(64 << 10).read_to_string(&mut stderr);
        }
        Gone::Ended(status, stderr)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Worker {
    /// Ends the worker: its input closed, it has a second to end by itself (and write
    /// what a profiler counted), then it is killed.
    fn finish(mut self) {
        self.to = None;
        for _ in 0..200 {
            if !self.alive() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // Off the run's thread: the run's answer does not wait for its worker to end.
        if let Some(worker) = self.worker.take() {
            let finishing = std::thread::Builder::new()
                .name("toolwright-code-worker-end".to_owned())
                .spawn(move || worker.finish());
            drop(finishing);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Waiting for a child that is ending: it has a moment, then it is killed.
trait WaitOrKill {
    fn wait_timeout_or_kill(&mut self) -> std::io::Result<std::process::ExitStatus>;
}

impl WaitOrKill for Child {
    fn wait_timeout_or_kill(&mut self) -> std::io::Result<std::process::ExitStatus> {
        for _ in 0..100 {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.kill();
        self.wait()
    }
}

/// An exit status in words: `exit status 3`, `killed by SIGSEGV`.
fn shown_status(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => "SIGABRT",
                9 => "SIGKILL",
                7 => "SIGBUS",
                11 => "SIGSEGV",
                24 => "SIGXCPU",
                _ => "a signal",
            };
            return format!("killed by {name} ({signal})");
        }
    }
    status.to_string()
}

fn write_frame(to: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
    to.write_all(&len.to_le_bytes())?;
    to.write_all(bytes)?;
    to.flush()
}

fn read_frame(from: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    from.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MESSAGE_LIMIT {
        return Err(std::io::Error::other(format!("a message of {len} bytes")));
    }
    let mut bytes = vec![0u8; len];
    from.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// The constructor that turns the executable into a worker when started as one; every
/// other start goes on to `main` at once.
#[ctor::ctor(unsafe)]
fn serve_if_worker() {
    if std::env::var_os(WORKER_VAR).is_some() {
        let code = match std::panic::catch_unwind(serve) {
            Ok(()) => 0,
            Err(_) => 70,
        };
        std::process::exit(code);
    }
}

/// A worker's life: confined, then one run's messages answered until the host closes
/// the pipe.
fn serve() {
    let held = address_space();
    let confined = confine();
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let hello = postcard::to_allocvec(&FromWorker::Ready { confined });
    if hello.map(|bytes| write_frame(&mut output, &bytes)).is_err() {
        return;
    }
    let mut local: Option<Local> = None;
    let mut printed = Printed::new(0);
    while let Ok(frame) = read_frame(&mut input) {
        let Ok(message) = postcard::from_bytes::<ToWorker>(&frame) else {
            return;
        };
        let reply = match message {
            ToWorker::Start { program, budget } => {
                limit(&budget, held);
                printed = Printed::new(budget.printed_bytes);
                let (started, stop) = Local::start(program, &budget, &mut printed);
                local = Some(started);
                stopped(stop, &mut printed)
            }
            ToWorker::Resume { kept, budget } => {
                limit(&budget, held);
                printed = Printed::new(budget.printed_bytes);
                let (resumed, stop) = Local::resumed(&kept);
                local = Some(resumed);
                stopped(stop, &mut printed)
            }
            ToWorker::Answer(answer) => match local.as_mut() {
                Some(local) => {
                    let stop = local.step(answer, &mut printed);
                    stopped(stop, &mut printed)
                }
                None => return,
            },
            ToWorker::Keep => FromWorker::Kept(match local.as_ref() {
                Some(local) => local.keep(),
                None => Err("no program runs here".to_owned()),
            }),
        };
        let Ok(bytes) = postcard::to_allocvec(&reply) else {
            return;
        };
        if write_frame(&mut output, &bytes).is_err() {
            return;
        }
    }
}

/// A stop, and what was printed before it (taken from the buffer).
fn stopped(stop: Stop, printed: &mut Printed) -> FromWorker {
    let limit = printed.limit();
    let text = std::mem::replace(printed, Printed::new(limit)).text();
    FromWorker::Stopped {
        stop,
        printed: text,
    }
}

/// What holds for the worker's whole life: no core dumps, no filesystem or network
/// where Landlock is there to refuse them, then no more file descriptors than it has.
/// Says how it is confined.
fn confine() -> String {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let none = Rlimit {
        current: Some(0),
        maximum: Some(0),
    };
    let _ = setrlimit(Resource::Core, none);
    let confined = landlocked();
    let three = Rlimit {
        current: Some(3),
        maximum: Some(3),
    };
    let _ = setrlimit(Resource::Nofile, three);
    confined
}

/// No filesystem and no network for the worker, where the kernel has Landlock: says so.
#[cfg(target_os = "linux")]
fn landlocked() -> String {
    use landlock::{ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, RulesetAttr};
    let abi = ABI::V5;
    let restricted = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .and_then(|ruleset| ruleset.handle_access(AccessNet::from_all(abi)))
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| ruleset.restrict_self());
    match restricted {
        Ok(status) => format!("rlimits, landlock {:?}", status.ruleset),
        Err(error) => format!("rlimits, landlock refused: {error}"),
    }
}

#[cfg(not(target_os = "linux"))]
fn landlocked() -> String {
    "rlimits (Landlock is Linux's)".to_owned()
}

/// The run's limits, set by the kernel: its memory on top of what the worker `held` as
/// it started, and its CPU time (and a second more) in all.
fn limit(budget: &Budget, held: Option<u64>) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    if let Some(now) = held {
        let room = now
            .saturating_add(budget.memory as u64)
            .saturating_add(64 << 20);
        let _ = setrlimit(
            Resource::As,
            Rlimit {
                current: Some(room),
                maximum: Some(room),
            },
        );
    }
    let seconds = budget.cpu_time.as_secs().saturating_add(2);
    let _ = setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(seconds),
            maximum: Some(seconds.saturating_add(1)),
        },
    );
}

/// The worker's address space now, in bytes (`VmSize`), where the OS says.
fn address_space() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
