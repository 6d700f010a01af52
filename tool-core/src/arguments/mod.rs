//! The whole read of a call's arguments, in order: the size limit, the optional repairs,
//! decoding a strict lowering (`lowered.rs`: `null` for an optional argument the
//! lowering made required means "left out", a map sent as entries becomes an object),
//! the object check, then the tool's own `prepare`:
//! the fast path (serde into the tool's types through [`strict::Strict`], plus the
//! typed constraint checks) and, only when that fails, the slow path ([`slow`]: every
//! problem the schema finds, each with its path).

mod integers;
mod lowered;
mod slow;
pub(crate) mod strict;

pub(crate) use integers::{has_float, whole_floats_as_integers};

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;

use serde_json::Value;

pub(crate) use slow::{check_is_object, invalid_arguments, no_parameters};

use crate::call::CallArguments;
use crate::call::ToolCall;
use crate::error::panicked;
use crate::error::{Problem, ToolError};
use crate::spec::ToolSpec;
use crate::tool::{Arguments, Prepared, Tool};

/// The registry's limits on reading arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The largest arguments accepted, in bytes of JSON as sent.
    pub(crate) max_bytes: usize,
    /// Whether the two common malformed shapes are repaired (`repair_arguments`).
    pub(crate) repair: bool,
}

/// A call's arguments once read: as the tool read them when repairs or the decoding of
/// a strict lowering changed them, else as they were sent. Every stage after the read
/// takes them from here (the policy, the claim's digest, an approval ticket, a retry, a
/// dry run's description), so none decides again which of the two it means. It keeps
/// only what the read changed; the call it was read from gives the rest.
pub(crate) struct AsRead {
    changed: Option<Box<Value>>,
}

impl AsRead {
    /// Arguments nothing changed: as sent.
    pub(crate) const SENT: AsRead = AsRead { changed: None };

    /// The arguments of `call`, borrowed, for a tool's `prepare` or a policy.
    #[inline]
    pub(crate) fn arguments<'a>(&'a self, call: &'a ToolCall) -> Arguments<'a> {
        match &self.changed {
            Some(value) => Arguments::Value(value),
            None => call.arguments.as_arguments(),
        }
    }

    /// The arguments of `call` as a JSON value (text that is not JSON is `null`).
    pub(crate) fn to_value(&self, call: &ToolCall) -> Value {
        match (&self.changed, &call.arguments) {
            (Some(value), _) => (**value).clone(),
            (None, CallArguments::Value(value)) => value.clone(),
            (None, CallArguments::Json(json)) => serde_json::from_str(json).unwrap_or(Value::Null),
        }
    }

    /// The arguments of `call` as JSON text.
    pub(crate) fn to_text<'a>(&'a self, call: &'a ToolCall) -> Cow<'a, str> {
        match &self.changed {
            Some(value) => Cow::Owned(value.to_string()),
            None => call.arguments.to_json_text(),
        }
    }
}

/// Reads `call`'s arguments for `tool`: the size limit, the repairs, the decoding of a
/// strict lowering, the object check and the tool's own `prepare`. Returns the prepared
/// arguments, and the arguments as read.
#[inline]
pub(crate) fn read(
    tool: &dyn Tool,
    spec: &ToolSpec,
    call: &ToolCall,
    limits: Limits,
    repairs: &mut Vec<String>,
) -> Result<(Prepared, AsRead), ToolError> {
    {
        let limit = limits.max_bytes;
        let size = match &call.arguments {
            CallArguments::Json(json) => (json.len() > limit).then(|| json.len().to_string()),
            // Parsed from a message no longer than the limit (MCP): it fits.
            CallArguments::Value(_) if call.sent_in_bytes.is_some_and(|bytes| bytes <= limit) => {
                None
            }
            // Already parsed (Anthropic, Gemini; an MCP message over the limit): count its
            // JSON text, stopping at the limit.
            CallArguments::Value(value) => {
                (encoded_len_up_to(value, limit) > limit).then(|| format!("more than {limit}"))
            }
        };
        if let Some(size) = size {
            return Err(ToolError::invalid_arguments(
                format!("the arguments of '{}' are too large", spec.name),
                vec![Problem::new(
                    "$",
                    format!("{size} bytes of JSON; the limit is {limit}"),
                )],
            )
            .with_hint("send smaller arguments; put large content in several calls"));
        }
        let mut repaired = if limits.repair {
            repair(tool, call, repairs)
        } else {
            None
        };
        if let Some(dialect) = call.written_for
            && let Some(decoding) = lowered::Decoding::of(dialect)
        {
            // Decode what the strict lowering encoded: `null` for an optional argument
            // that cannot be null means the model left it out; a map came as entries.
            let parsed = match (repaired.take(), &call.arguments) {
                (Some(value), _) => Some(value),
                (None, CallArguments::Value(value)) => Some(value.clone()),
                (None, CallArguments::Json(json)) => serde_json::from_str(json).ok(),
            };
            if let Some(mut value) = parsed {
                decoding
                    .decode(&mut value, &spec.input_schema)
                    .map_err(|problems| slow::problems_with_arguments(spec, problems))?;
                repaired = Some(value);
            }
        }
        let read = AsRead {
            changed: repaired.map(Box::new),
        };
        let arguments = read.arguments(call);
        if let Arguments::Value(value) = arguments {
            check_is_object(spec, value)?;
        }
        let prepared = std::panic::catch_unwind(AssertUnwindSafe(|| tool.prepare(arguments)))
            .unwrap_or_else(|panic| Err(panicked(&spec.name, "reading its arguments", &*panic)))?;
        Ok((prepared, read))
    }
}

/// The explicit, logged repairs of `RegistryBuilder::repair_arguments`.
fn repair(tool: &dyn Tool, call: &ToolCall, repairs: &mut Vec<String>) -> Option<Value> {
    let spec = tool.spec();
    let parsed: Cow<'_, Value> = match &call.arguments {
        CallArguments::Value(value) => Cow::Borrowed(value),
        CallArguments::Json(json) if json.trim().is_empty() => Cow::Owned(Value::Null),
        CallArguments::Json(json) => Cow::Owned(serde_json::from_str(json).ok()?),
    };
    let (repaired, what) = match &*parsed {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(object @ Value::Object(_)) => (
                object,
                "the arguments were a JSON object inside a string; read the object",
            ),
            _ => return None,
        },
        Value::Null if no_parameters(spec) => (
            Value::Object(serde_json::Map::new()),
            "the arguments were empty or null for a tool without parameters; read them as {}",
        ),
        _ => return None,
    };
    tracing::warn!(tool = %spec.name, call_id = %call.id, repair = what, "repaired tool call arguments");
    repairs.push(what.to_owned());
    Some(repaired)
}

/// The length of `value` as compact JSON, counted up to just past `limit`.
fn encoded_len_up_to(value: &Value, limit: usize) -> usize {
    struct Counter {
        bytes: usize,
        limit: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len();
            if self.bytes > self.limit {
                // Stops the serializer: the answer is known.
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { bytes: 0, limit };
    let _ = serde_json::to_writer(&mut counter, value);
    counter.bytes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::Context;
    use crate::effect::Effect;
    use crate::tool::ToolFuture;

    struct Numbers(ToolSpec);

    impl Tool for Numbers {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn prepare(&self, _: Arguments<'_>) -> Result<Prepared, ToolError> {
            Ok(Prepared::new(()))
        }
        fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
            ToolFuture::ready(Ok(crate::tool::ToolOutput::Text(String::new())))
        }
    }

    /// Reads `arguments` (parsed from `text`, as an MCP server parses them) under a
    /// limit of `limit` bytes; `message` is the length of the message they came in.
    fn read_under(text: &str, message: Option<usize>, limit: usize) -> Result<(), ToolError> {
        let tool = Numbers(ToolSpec::new(
            "numbers",
            "Take numbers.",
            json!({"type": "object"}),
            Effect::ReadOnly,
        ));
        let mut call = ToolCall::new("1", "numbers", serde_json::from_str::<Value>(text).unwrap());
        call.sent_in_bytes = message;
        let limits = Limits {
            max_bytes: limit,
            repair: false,
        };
        read(&tool, tool.spec(), &call, limits, &mut Vec::new()).map(drop)
    }

    #[test]
    fn the_limit_is_on_the_bytes_sent() {
        // 40 numbers written `1e9` (3 bytes) read back as `1000000000.0` (12 bytes).
        let text = format!(r#"{{"n":[{}]}}"#, vec!["1e9"; 40].join(","));
        let limit = text.len() + 10;
        // Sent in a message within the limit: accepted, though written again it is not.
        assert!(read_under(&text, Some(text.len() + 10), limit).is_ok());
        // Parsed with no message to measure (Anthropic, Gemini): counted as written again.
        let error = read_under(&text, None, limit).unwrap_err();
        assert!(error.message.contains("too large"), "{}", error.message);
        // A message over the limit: the arguments are counted; small ones pass.
        assert!(read_under(r#"{"n":[1]}"#, Some(limit * 4), limit).is_ok());
        let error = read_under(&text, Some(limit * 4), limit).unwrap_err();
        assert!(error.message.contains("too large"), "{}", error.message);
    }
}
