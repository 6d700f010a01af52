//! A run's interpreter where [`CodeMode::isolation`](super::CodeMode::isolation) puts
//! it: in this process (`interpreter.rs`) or in a worker process (`worker.rs`), behind
//! the one exchange both speak.

use super::interpreter::{Answer, Budget, Local, Stop};
use super::printed::Printed;

/// A run's interpreter: in this process, or in a worker process.
pub(super) enum Interpreter {
    /// Boxed: the interpreter's state is a kilobyte.
    Local(Box<Local>),
    #[cfg(unix)]
    Worker(super::worker::Remote),
}

impl Interpreter {
    /// Compiles `program` and runs it to its first stop, where `code` runs programs.
    pub(super) fn start(
        code: &super::Code,
        program: String,
        budget: &Budget,
        printed: &mut Printed,
    ) -> (Self, Stop) {
        #[cfg(unix)]
        if let Some(pool) = &code.pool {
            let (remote, stop) = pool.start(program, budget, printed);
            return (Self::Worker(remote), stop);
        }
        let _ = code;
        let (local, stop) = Local::start(program, budget, printed);
        (Self::Local(Box::new(local)), stop)
    }

    /// A kept interpreter (`keep`'s bytes), waiting for calls in flight again.
    pub(super) fn resumed(
        code: &super::Code,
        kept: Vec<u8>,
        budget: &Budget,
        printed: &mut Printed,
    ) -> (Self, Stop) {
        #[cfg(unix)]
        if let Some(pool) = &code.pool {
            let (remote, stop) = pool.resumed(kept, budget, printed);
            return (Self::Worker(remote), stop);
        }
        let _ = (code, printed);
        let (local, stop) = Local::resumed(&kept);
        (Self::Local(Box::new(local)), stop)
    }

    /// Goes on from the last stop with `answer`, to the next stop.
    pub(super) fn step(&mut self, answer: Answer, printed: &mut Printed) -> Stop {
        match self {
            Self::Local(local) => local.step(answer, printed),
            #[cfg(unix)]
            Self::Worker(remote) => remote.step(answer, printed),
        }
    }

    /// The interpreter waiting for calls in flight, as bytes to keep (for a pause).
    pub(super) fn keep(&mut self) -> Result<Vec<u8>, String> {
        match self {
            Self::Local(local) => local.keep(),
            #[cfg(unix)]
            Self::Worker(remote) => remote.keep(),
        }
    }
}
