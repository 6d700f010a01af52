//! Capabilities in the type system: a context handle can say how much power it carries,
//! and `#[tool]` refuses to hand it to a tool that declares a weaker effect. A
//! `read_only` tool cannot even receive the means to write.
//!
//! ```compile_fail
//! # use toolwright::{tool, capability::Writes};
//! # struct Workspace;
//! /// Read a file.
//! #[tool(effect = "read_only")]
//! fn read(path: String, #[ctx] ws: &Writes<Workspace>) -> String { path }
//! ```

use std::ops::Deref;

macro_rules! capability {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default)]
        pub struct $name<T>(pub T);

        impl<T> Deref for $name<T> {
            type Target = T;
            fn deref(&self) -> &T {
                &self.0
            }
        }
    };
}

capability! {
    /// A context handle that can make reversible local changes: only `write` tools (and
    /// riskier) may take it.
    Writes
}

capability! {
    /// A context handle that can make irreversible local changes: only `destructive`
    /// and `external` tools may take it.
    Destroys
}

capability! {
    /// A context handle that acts on the outside world (sends mail, moves money): only
    /// `external` tools may take it.
    ActsExternally
}
