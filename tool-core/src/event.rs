//! What the dispatcher reports while calls run, to an observer
//! ([`RegistryBuilder::with_observer`](crate::RegistryBuilder::with_observer)).

use serde::Serialize;

/// A tool started or finished (in a batch, or a single dispatch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// A tool started running.
    Started {
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
    },
    /// A tool finished (whatever its outcome).
    Finished {
        /// The call's id.
        call_id: String,
        /// The tool.
        tool: String,
    },
}
