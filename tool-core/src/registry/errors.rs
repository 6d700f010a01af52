//! What can be wrong with a registry's configuration: each problem
//! ([`RegistryError`]), and all of them at once ([`RegistryErrors`], what
//! [`RegistryBuilder::build`](super::RegistryBuilder::build) returns).

use std::fmt;

/// A tool that cannot join a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Another tool already has this name.
    DuplicateName {
        /// The name both tools have.
        name: String,
        /// Where the registered one came from (its type, or its toolset).
        first: String,
        /// Where the newcomer came from.
        second: String,
    },
    /// A name no provider accepts (a prefixed toolset's).
    InvalidName {
        /// The name.
        name: String,
        /// The rule it breaks, and what to do.
        reason: &'static str,
    },
    /// A tool's example (`#[tool(example = ...)]`) is a call the tool would refuse: it
    /// would teach the model a mistake.
    InvalidExample {
        /// The tool.
        tool: String,
        /// Which example, from 1.
        example: usize,
        /// What the tool said of it, every problem listed.
        problems: String,
    },
    /// [`Registry::set_enabled`](super::Registry::set_enabled) on a registry built without
    /// [`RegistryBuilder::with_runtime_toggles`](super::RegistryBuilder::with_runtime_toggles).
    TogglesOff {
        /// The tool named.
        name: String,
    },
    /// Settings name a tool the registry does not have.
    UnknownTool {
        /// The name given.
        name: String,
        /// The registered name closest to it, if any is close.
        closest: Option<String>,
    },
    /// The embedder of
    /// [`RegistryBuilder::with_semantic_search`](super::RegistryBuilder::with_semantic_search)
    /// could not embed the tools.
    #[cfg(feature = "search")]
    Embedder {
        /// Why.
        error: crate::search::EmbedError,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::DuplicateName {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are named '{name}' (one from {first}, one from {second}): a model could not tell them apart; rename one with #[tool(name = \"...\")] or register a toolset under a prefix (RegistryBuilder::with_toolset_prefixed)"
            ),
            RegistryError::InvalidExample {
                tool,
                example,
                problems,
            } => write!(
                f,
                "example {example} of tool '{tool}' is a call the tool refuses, so it would teach the model a mistake; fix the example: {problems}"
            ),
            RegistryError::InvalidName { name, reason } => {
                write!(f, "'{name}' is not a valid tool name: {reason}")
            }
            RegistryError::TogglesOff { name } => write!(
                f,
                "cannot turn '{name}' off or on: the registry was built without RegistryBuilder::with_runtime_toggles(), so its clients were told its tools never change; build it with with_runtime_toggles()"
            ),
            #[cfg(feature = "search")]
            RegistryError::Embedder { error } => write!(
                f,
                "the semantic search could not embed the tools: {error}; fix the embedder (the model's directory, the service's key), or build with SemanticSearch::fall_back_to_words() to rank by words while it fails"
            ),
            RegistryError::UnknownTool { name, closest } => {
                write!(f, "no tool named '{name}' to configure")?;
                match closest {
                    Some(closest) => write!(f, "; did you mean '{closest}'?"),
                    None => write!(
                        f,
                        "; register it with RegistryBuilder::with, or fix the name"
                    ),
                }
            }
        }
    }
}

impl std::error::Error for RegistryError {}

impl RegistryError {
    /// A name the registry lacks, with the closest registered one when it is close.
    pub(crate) fn unknown(name: &str, closest: Option<&str>) -> Self {
        let closest = closest
            .filter(|close| crate::similarity::jaro_winkler(name, close) > 0.7)
            .map(str::to_owned);
        RegistryError::UnknownTool {
            name: name.to_owned(),
            closest,
        }
    }
}

/// Every problem a registry's configuration has, found at once by
/// [`RegistryBuilder::build`](super::RegistryBuilder::build): fix them all in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryErrors(pub Vec<RegistryError>);

impl std::ops::Deref for RegistryErrors {
    type Target = [RegistryError];

    fn deref(&self) -> &[RegistryError] {
        &self.0
    }
}

impl fmt::Display for RegistryErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            all => {
                write!(f, "the registry has {} problems:", all.len())?;
                for error in all {
                    write!(f, "\n  - {error}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for RegistryErrors {}
