//! Approval as a serializable interruption: a call that needs a person's yes pauses with
//! a ticket bound to a digest of its arguments; a run can stop here and resume in another
//! process.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// A paused call, waiting for a person. Serialize it, show it, store it; resume with
/// [`Registry::resume`](crate::Registry::resume).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalTicket {
    /// The call's id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The call's arguments, as validated.
    pub arguments: Value,
    /// SHA-256 of the tool name and the arguments (keys sorted), hex: a decision must
    /// name it, so it approves exactly this call.
    pub digest: String,
    /// Why approval is needed.
    pub reason: String,
}

/// A person's answer to a ticket. Each names the digest it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run the call as it is.
    Approve {
        /// The ticket's digest.
        digest: String,
    },
    /// Do not run it; the model is told not to retry and to tell the user.
    Decline {
        /// The ticket's digest.
        digest: String,
        /// What the person said.
        reason: String,
    },
    /// Run it with these arguments instead (validated again).
    ApproveWithEdits {
        /// The ticket's digest.
        digest: String,
        /// The arguments to run with.
        arguments: Value,
    },
}

impl ApprovalDecision {
    /// The digest the decision answers.
    pub fn digest(&self) -> &str {
        match self {
            ApprovalDecision::Approve { digest }
            | ApprovalDecision::Decline { digest, .. }
            | ApprovalDecision::ApproveWithEdits { digest, .. } => digest,
        }
    }
}

/// The digest of a call: SHA-256 over `{"arguments": ..., "tool": ...}` with every
/// object's keys sorted, so the same call always has the same digest.
pub fn digest(tool: &str, arguments: &Value) -> String {
    let canonical = canonical(&serde_json::json!({"tool": tool, "arguments": arguments}));
    let hash = Sha256::digest(canonical.as_bytes());
    hash.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> = entries
                .iter()
                .map(|(key, value)| {
                    format!("{}:{}", Value::String((*key).clone()), canonical(value))
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::digest;

    #[test]
    fn the_digest_ignores_key_order_and_sees_every_value() {
        let a = digest("refund", &json!({"amount": 5, "currency": "EUR"}));
        assert_eq!(
            a,
            digest("refund", &json!({"currency": "EUR", "amount": 5}))
        );
        assert_ne!(
            a,
            digest("refund", &json!({"currency": "EUR", "amount": 6}))
        );
        assert_ne!(
            a,
            digest("charge", &json!({"currency": "EUR", "amount": 5}))
        );
        assert_eq!(a.len(), 64);
    }
}
