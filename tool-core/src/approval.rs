//! Approval as a serializable interruption: a call that needs a person's yes pauses with
//! a ticket bound to a digest of its arguments; a run can stop here and resume in another
//! process.
//!
//! A ticket is signed by the registry that issued it (HMAC-SHA256 with the registry's
//! approval secret, [`RegistryBuilder::with_approval_secret`](crate::RegistryBuilder::with_approval_secret)),
//! carries when it was issued and when it expires and who it was issued to, and is spent
//! by its first decision: [`Registry::resume`](crate::registry::Registry::resume) refuses a ticket
//! it did not sign, an expired one and one issued to another caller, and a second
//! decision on a ticket gets the first decision's result, marked duplicate. Without a
//! configured secret each registry draws a random one, so its tickets do not survive a
//! restart and other replicas do not accept them.

use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, KeyInit as _, Mac as _};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::idempotency::{hex, write_canonical, write_json_string};

/// A paused call, waiting for a person. Serialize it, show it, store it; resume with
/// [`Registry::resume`](crate::registry::Registry::resume). Every field is covered by the
/// signature: change one and the ticket is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalTicket {
    /// The call's id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The call's arguments, as validated.
    pub arguments: Value,
    /// The call's [`digest`]: a decision must name it, so it approves exactly this call.
    pub digest: String,
    /// Why approval is needed.
    pub reason: String,
    /// The id of the caller the ticket was issued to (the context's
    /// [`Caller`](crate::policy::Caller)); only that caller can resume it.
    #[serde(default)]
    pub caller: Option<String>,
    /// Where the call's id is unique ([`ToolCall::origin`](crate::call::ToolCall::origin)).
    #[serde(default)]
    pub origin: Option<String>,
    /// The call's own idempotency key, when it had one.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// When the ticket was issued, in seconds since the Unix epoch.
    pub issued_at: u64,
    /// When it stops being accepted, in seconds since the Unix epoch.
    pub expires_at: u64,
    /// HMAC-SHA256 of every other field, hex, with the issuing registry's secret.
    pub signature: String,
}

/// A person's answer to a ticket. Each names the digest it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
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

/// The digest of a call: SHA-256 (hex) over `{"arguments": ..., "tool": ...}` with every
/// object's keys sorted, so the same call always has the same digest. It names a call for
/// display and for decisions; it approves nothing by itself (tickets are signed).
pub fn digest(tool: &str, arguments: &Value) -> String {
    // The canonical form of `{"arguments": arguments, "tool": tool}` (keys sorted),
    // written without building that object.
    let mut hasher = Sha256::new();
    let mut sink = |bytes: &[u8]| hasher.update(bytes);
    sink(b"{\"arguments\":");
    write_canonical(arguments, &mut sink);
    sink(b",\"tool\":");
    write_json_string(tool, &mut sink);
    sink(b"}");
    hex(&hasher.finalize())
}

/// How a registry signs and checks its tickets.
#[derive(Clone)]
pub(crate) struct Approvals {
    secret: Arc<[u8]>,
    pub lifetime: Duration,
}

impl Default for Approvals {
    fn default() -> Self {
        Self {
            secret: random_secret().into(),
            lifetime: Duration::from_secs(24 * 3600),
        }
    }
}

/// Why a ticket is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TicketFault {
    Forged,
    Expired,
    OtherCaller,
}

impl Approvals {
    pub fn with_secret(mut self, secret: &[u8]) -> Self {
        self.secret = secret.into();
        self
    }

    /// Signs `ticket` (its `signature` is replaced).
    pub fn sign(&self, ticket: &mut ApprovalTicket) {
        ticket.signature = hex(&self.mac(ticket).finalize().into_bytes());
    }

    /// Checks a ticket presented by `caller` at `now` (Unix seconds).
    pub fn check(
        &self,
        ticket: &ApprovalTicket,
        caller: Option<&str>,
        now: u64,
    ) -> Result<(), TicketFault> {
        let signature = unhex(&ticket.signature).ok_or(TicketFault::Forged)?;
        // Constant-time comparison.
        self.mac(ticket)
            .verify_slice(&signature)
            .map_err(|_| TicketFault::Forged)?;
        if now >= ticket.expires_at {
            return Err(TicketFault::Expired);
        }
        if ticket.caller.as_deref() != caller {
            return Err(TicketFault::OtherCaller);
        }
        Ok(())
    }

    /// HMAC-SHA256 (hex) of `parts` with the secret tickets are signed with: a value
    /// only this registry (and the replicas sharing its secret) can make, such as the id
    /// of a task.
    #[cfg(feature = "mcp")]
    pub(crate) fn tag(&self, parts: &[&str]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
        write_canonical(&json!(parts), &mut |bytes| mac.update(bytes));
        hex(&mac.finalize().into_bytes())
    }

    fn mac(&self, ticket: &ApprovalTicket) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
        let fields = json!([
            "toolwright-approval-ticket/1",
            ticket.call_id,
            ticket.tool,
            ticket.arguments,
            ticket.digest,
            ticket.reason,
            ticket.caller,
            ticket.origin,
            ticket.idempotency_key,
            ticket.issued_at,
            ticket.expires_at,
        ]);
        write_canonical(&fields, &mut |bytes| mac.update(bytes));
        mac
    }
}

/// 32 bytes from the operating system; if it cannot give them (it practically always
/// can), a hash of what differs between processes and moments, logged as weaker.
fn random_secret() -> Vec<u8> {
    let mut secret = vec![0u8; 32];
    if getrandom::fill(&mut secret).is_err() {
        tracing::warn!(
            "the OS gave no random bytes; approval tickets are signed with a weaker secret"
        );
        let mut hasher = Sha256::new();
        hasher.update(format!("{:?}", std::time::SystemTime::now()).as_bytes());
        hasher.update(std::process::id().to_le_bytes());
        hasher.update((&raw const secret as usize).to_le_bytes());
        secret = hasher.finalize().to_vec();
    }
    secret
}

/// An id no other session of any process shares (for MCP session origins): a random
/// 128-bit prefix drawn once per process, and a counter. Unique, not secret: an origin
/// only keeps sessions' call ids apart.
#[cfg(feature = "mcp")]
pub(crate) fn random_id() -> String {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static PREFIX: OnceLock<String> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let prefix = PREFIX.get_or_init(|| hex(&random_secret()[..16]));
    format!("{prefix}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use sha2::{Digest as _, Sha256};

    use super::{ApprovalTicket, Approvals, TicketFault, digest};

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
        // The same bytes as the canonical form of the wrapping object.
        let mut bytes = Vec::new();
        crate::idempotency::write_canonical(
            &json!({"tool": "refund", "arguments": {"amount": 5, "currency": "EUR"}}),
            &mut |chunk| bytes.extend_from_slice(chunk),
        );
        assert_eq!(a, crate::idempotency::hex(&Sha256::digest(&bytes)));
    }

    fn ticket() -> ApprovalTicket {
        ApprovalTicket {
            call_id: "c1".into(),
            tool: "refund".into(),
            arguments: json!({"amount": 5}),
            digest: digest("refund", &json!({"amount": 5})),
            reason: "large".into(),
            caller: Some("alice".into()),
            origin: None,
            idempotency_key: None,
            issued_at: 100,
            expires_at: 200,
            signature: String::new(),
        }
    }

    #[test]
    fn a_ticket_verifies_only_unchanged_with_its_own_secret_in_time_for_its_caller() {
        let approvals = Approvals::default().with_secret(b"secret");
        let mut signed = ticket();
        approvals.sign(&mut signed);
        assert_eq!(approvals.check(&signed, Some("alice"), 150), Ok(()));
        assert_eq!(
            approvals.check(&signed, Some("alice"), 200),
            Err(TicketFault::Expired)
        );
        assert_eq!(
            approvals.check(&signed, Some("bob"), 150),
            Err(TicketFault::OtherCaller)
        );
        assert_eq!(
            approvals.check(&signed, None, 150),
            Err(TicketFault::OtherCaller)
        );
        let other = Approvals::default().with_secret(b"another secret");
        assert_eq!(
            other.check(&signed, Some("alice"), 150),
            Err(TicketFault::Forged)
        );
        let mut edited = signed.clone();
        edited.expires_at = 10_000;
        assert_eq!(
            approvals.check(&edited, Some("alice"), 150),
            Err(TicketFault::Forged)
        );
        let mut edited = signed.clone();
        edited.arguments = json!({"amount": 9_000_000});
        edited.digest = digest("refund", &edited.arguments);
        assert_eq!(
            approvals.check(&edited, Some("alice"), 150),
            Err(TicketFault::Forged)
        );
        let mut garbled = signed;
        garbled.signature = "zz".into();
        assert_eq!(
            approvals.check(&garbled, Some("alice"), 150),
            Err(TicketFault::Forged)
        );
    }

    #[test]
    fn random_secrets_differ() {
        let (a, b) = (Approvals::default(), Approvals::default());
        let mut one = ticket();
        a.sign(&mut one);
        let mut two = ticket();
        b.sign(&mut two);
        assert_ne!(one.signature, two.signature);
    }
}
