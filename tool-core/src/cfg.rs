//! Feature combinations, each spelled once (tokio's `cfg_*!` macros are the model): a
//! macro wraps items in the combination's `cfg`, with a `doc(cfg)` badge on docs.rs.
//! Exported, hidden, so the facade gates its own modules with the same spelling (its
//! features have the same names, and a `cfg` in a macro is read in the crate that
//! invokes it).

/// Items for the framework adapters: any of `rig`, `async-openai`, `genai`, `swiftide`.
#[doc(hidden)]
#[macro_export]
macro_rules! cfg_frameworks {
    ($($item:item)*) => {
        $(
            #[cfg(any(feature = "rig", feature = "async-openai", feature = "genai", feature = "swiftide"))]
            #[cfg_attr(docsrs, doc(cfg(any(feature = "rig", feature = "async-openai", feature = "genai", feature = "swiftide"))))]
            $item
        )*
    };
}

/// Items for the adapters that run the tools themselves and hold the calls waiting for
/// approval: `rig` or `swiftide`.
#[doc(hidden)]
#[macro_export]
macro_rules! cfg_framework_runner {
    ($($item:item)*) => {
        $(
            #[cfg(any(feature = "rig", feature = "swiftide"))]
            #[cfg_attr(docsrs, doc(cfg(any(feature = "rig", feature = "swiftide"))))]
            $item
        )*
    };
}

/// Items for the adapters that declare tools from their definitions (`rig`, `genai`,
/// `swiftide`; async-openai takes the definitions as they are).
#[doc(hidden)]
#[macro_export]
macro_rules! cfg_framework_offered {
    ($($item:item)*) => {
        $(
            #[cfg(any(feature = "rig", feature = "genai", feature = "swiftide"))]
            $item
        )*
    };
}
