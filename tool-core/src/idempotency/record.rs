//! What the embedded stores (memory, redb) keep under a key, and the claim contract's
//! rules applied to it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Claim, ClaimRequest, Settlement, StoredOutcome, millis};
use crate::error::ToolError;
use crate::tool::ToolOutput;

/// A record as the embedded stores keep it (memory keeps the same fields in place).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub digest: String,
    pub tool: String,
    pub state: RecordState,
    /// When the record may be dropped, in Unix milliseconds.
    pub expires_at: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum RecordState {
    Running {
        lease_until: u64,
    },
    Done {
        outcome: Result<ToolOutput, ToolError>,
    },
    Unknown,
}

impl Record {
    /// What a claim of `request` finds in this record at `now`; `None` when the record
    /// has expired and the key is free.
    pub fn claim_outcome(&self, request: &ClaimRequest<'_>, now: u64) -> Option<Claim> {
        if self.expires_at <= now {
            return None;
        }
        if self.digest != request.digest {
            return Some(Claim::Mismatch {
                tool: self.tool.clone(),
            });
        }
        Some(match &self.state {
            RecordState::Done { outcome } => Claim::Done(StoredOutcome {
                tool: self.tool.clone(),
                outcome: outcome.clone(),
            }),
            RecordState::Running { lease_until } if *lease_until > now => Claim::InFlight,
            RecordState::Running { .. } | RecordState::Unknown => Claim::Unknown,
        })
    }

    /// A new claim for `request` at `now`.
    pub fn claimed(request: &ClaimRequest<'_>, now: u64) -> Self {
        Record {
            digest: request.digest.to_owned(),
            tool: request.tool.to_owned(),
            state: RecordState::Running {
                lease_until: now.saturating_add(millis(request.lease)),
            },
            expires_at: now.saturating_add(millis(request.retention.max(request.lease))),
        }
    }

    /// Extends a running claim's lease to `lease` from `now`.
    pub fn renew(&mut self, lease: Duration, now: u64) {
        if let RecordState::Running { lease_until } = &mut self.state {
            *lease_until = now.saturating_add(millis(lease));
        }
    }

    /// Applies `settlement`; `false` when the key is released (the record goes).
    pub fn settle(&mut self, settlement: Settlement, retention: Duration, now: u64) -> bool {
        match settlement {
            Settlement::Release => return false,
            Settlement::Done(stored) => {
                self.state = RecordState::Done {
                    outcome: stored.outcome,
                };
                self.expires_at = now.saturating_add(millis(retention));
            }
            Settlement::Unknown => self.state = RecordState::Unknown,
        }
        true
    }
}
