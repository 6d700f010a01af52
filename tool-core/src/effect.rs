//! Effect classes: what a tool does to the world, read by code on every call.

use serde::{Deserialize, Serialize};

/// What a tool does to the world. One value per tool, declared with
/// `#[tool(effect = "...")]`; the MCP annotations, and later the policy and the scheduler,
/// all come from it.
///
/// A tool that declares no effect is treated as [`Effect::External`], the riskiest class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// Changes nothing.
    ReadOnly,
    /// A reversible, local change (editing a file in a workspace).
    Write,
    /// An irreversible, local change (deleting a file).
    Destructive,
    /// Acts on the outside world: money, mail, other people's systems.
    External,
    /// Classified per call by a function the tool names; until classified, and when the
    /// classifier cannot tell, it counts as the riskiest class.
    Dynamic,
}

impl Effect {
    /// The class a tool gets when it declares none.
    pub const RISKIEST: Effect = Effect::External;

    /// Every class, in the order of the effect table (`toolwright::guide::effects`).
    pub const ALL: [Effect; 5] = [
        Effect::ReadOnly,
        Effect::Write,
        Effect::Destructive,
        Effect::External,
        Effect::Dynamic,
    ];

    /// The name used in `#[tool(effect = "...")]` and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Effect::ReadOnly => "read_only",
            Effect::Write => "write",
            Effect::Destructive => "destructive",
            Effect::External => "external",
            Effect::Dynamic => "dynamic",
        }
    }

    /// How risky the class is, from 0 (read-only) to 3 (external, and dynamic, which may
    /// turn out to be external): the riskiest of several tools is the one of highest rank.
    pub const fn rank(self) -> u8 {
        match self {
            Effect::ReadOnly => 0,
            Effect::Write => 1,
            Effect::Destructive => 2,
            Effect::External | Effect::Dynamic => 3,
        }
    }

    /// The MCP tool annotations this class implies. All four hints are always explicit:
    /// MCP's defaults would call an unannotated tool destructive and open-world.
    ///
    /// `idempotent` and `open_world` are the tool's modifiers; a read-only tool is always
    /// idempotent, an external one always open-world. A dynamic tool is annotated as the
    /// riskiest class it may turn out to be.
    pub const fn annotations(self, idempotent: bool, open_world: bool) -> Annotations {
        let (read_only, destructive, open) = match self {
            Effect::ReadOnly => (true, false, open_world),
            Effect::Write => (false, false, open_world),
            Effect::Destructive => (false, true, open_world),
            Effect::External | Effect::Dynamic => (false, true, true),
        };
        Annotations {
            read_only_hint: read_only,
            destructive_hint: destructive,
            idempotent_hint: read_only || idempotent,
            open_world_hint: open,
        }
    }
}

impl std::fmt::Display for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// MCP's tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
/// `openWorldHint`), derived from the effect class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// The tool changes nothing.
    pub read_only_hint: bool,
    /// A change it makes cannot be undone.
    pub destructive_hint: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent_hint: bool,
    /// It reaches beyond the local system.
    pub open_world_hint: bool,
}
