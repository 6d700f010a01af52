//! Streaming tool input: a call's arguments read while the model is still writing them
//! ([`PartialCall`]). Each piece is parsed once, and each value checked against the
//! tool's schema as it is written, so a call that no further text can make valid is
//! known at the piece where it goes wrong (a string where an integer goes, an argument
//! the tool does not take, a string past its `maxLength`, a value no `enum` member
//! begins, malformed JSON), not after the model has written the rest; and a call whose
//! text never completed is answered, never run.
//!
//! `reader.rs` is the incremental parser and its frames, `lexer.rs` the JSON grammar it
//! walks byte by byte, `ways.rs` the schema's conjunctions it meets (each worked out
//! once), `prefix.rs` what a schema says of a value still being written, and
//! `pattern.rs` an anchored `pattern` read on a prefix.

mod lexer;
mod paths;
mod pattern;
mod prefix;
mod reader;
mod stream;
mod ways;

pub use stream::StreamedTurn;

use serde_json::Value;

use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::{Problem, ToolError};
use crate::registry::Registry;

/// What can be said of a call's arguments so far.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Nothing is wrong yet, and the arguments are not complete.
    Incomplete,
    /// No further text can make the arguments valid: every problem found, each with its
    /// path, and the byte of the text where the first was found.
    Hopeless {
        /// The problems, each with its path.
        problems: Vec<Problem>,
        /// The offset in the arguments' text of the byte that made them hopeless.
        at: usize,
    },
    /// The arguments are complete, and nothing seen so far is wrong: the call goes
    /// through the registry's checks like any other
    /// ([`PartialCall::finish`]).
    Complete,
}

/// One tool call whose arguments arrive in pieces, as a provider streams them: fed each
/// piece ([`PartialCall::push`]), it says at any moment whether the call can still be
/// valid ([`PartialCall::verdict`]) and what is known of its arguments
/// ([`PartialCall::snapshot`]); once the stream ends, [`PartialCall::finish`] gives the
/// call to dispatch, or the result that answers it without running it (hopeless, or
/// cut before its end).
///
/// ```
/// # use toolwright::{tool, Context, Registry};
/// # use toolwright::partial::Verdict;
/// /// Search the files of the workspace.
/// #[tool(effect = "read_only")]
/// fn search_files(
///     /// The text to find.
///     query: String,
///     /// Most matches to return.
///     #[arg(minimum = 1, maximum = 50)]
///     max_results: Option<u32>,
/// ) -> Vec<String> { vec![] }
///
/// let registry = Registry::builder().with(SearchFiles).build().unwrap();
/// let ctx = Context::new();
///
/// let mut call = registry.partial_call(&ctx, "call_1", "search_files");
/// call.push(r#"{"query": "fn ma"#);
/// assert_eq!(call.verdict(), &Verdict::Incomplete);
/// assert_eq!(call.snapshot()["query"], "fn ma");
/// call.push(r#"in", "max_results": "#);
/// // A string where an integer goes: hopeless at its first byte.
/// call.push(r#""ten"}"#);
/// let Verdict::Hopeless { problems, .. } = call.verdict() else { panic!() };
/// assert_eq!(problems[0].path, "$.max_results");
/// let answered = call.finish().unwrap_err();
/// assert!(answered.for_model().contains("expected an integer or null, got a string"));
/// ```
pub struct PartialCall<'r> {
    registry: &'r Registry,
    id: String,
    name: String,
    text: String,
    read: Read<'r>,
    /// The dialect whose lowering the model writes against, when read in one.
    written_for: Option<Dialect>,
}

/// The reading of a call: of its tool's arguments, or refused at its name.
enum Read<'r> {
    Reading(reader::Reader<'r>, Verdict),
    Refused(ToolError),
}

impl Registry {
    /// A call of the tool `name` (for the caller in `ctx`), whose arguments will arrive
    /// in pieces. A tool the caller is not offered makes a call that is refused at
    /// once: its verdict is hopeless before any argument arrives.
    pub fn partial_call<'r>(
        &'r self,
        ctx: &Context,
        id: impl Into<String>,
        name: impl Into<String>,
    ) -> PartialCall<'r> {
        self.partial(ctx, None, id.into(), name.into())
    }

    /// [`Registry::partial_call`] for a call the model writes against `dialect`'s
    /// lowering of the tool (a strict mode's nullable optionals, maps as entries): its
    /// pieces are checked against that lowering, and the call, once complete, is read as
    /// [`provider::parse_calls`](crate::provider::parse_calls) reads the dialect's calls.
    pub fn partial_call_in<'r>(
        &'r self,
        ctx: &Context,
        dialect: Dialect,
        id: impl Into<String>,
        name: impl Into<String>,
    ) -> PartialCall<'r> {
        self.partial(ctx, Some(dialect), id.into(), name.into())
    }

    fn partial(
        &self,
        ctx: &Context,
        dialect: Option<Dialect>,
        id: String,
        name: String,
    ) -> PartialCall<'_> {
        let read = match (self.lookup(Some(ctx), &name), self.index_of(&name)) {
            (Ok(entry), Some(index)) => {
                let schema = match dialect {
                    Some(dialect) => self.lowered_input(dialect, index),
                    None => &entry.tool.spec().input_schema,
                };
                Read::Reading(reader::Reader::new(schema), Verdict::Incomplete)
            }
            (Err(error), _) => Read::Refused(error),
            (Ok(_), None) => Read::Refused(ToolError::internal("the tool has no entry")),
        };
        PartialCall {
            registry: self,
            id,
            name,
            text: String::new(),
            read,
            written_for: dialect,
        }
    }
}

impl<'r> PartialCall<'r> {
    /// Reads the next piece of the arguments' text, and says what can be said now.
    /// Pieces after the verdict is hopeless are kept but not read.
    pub fn push(&mut self, piece: &str) -> &Verdict {
        self.text.push_str(piece);
        if let Read::Reading(reader, verdict) = &mut self.read
            && !matches!(verdict, Verdict::Hopeless { .. })
        {
            reader.push(piece);
            *verdict = match reader.found() {
                reader::Found::Incomplete => Verdict::Incomplete,
                reader::Found::Complete => Verdict::Complete,
                reader::Found::Hopeless { problems, at } => Verdict::Hopeless {
                    problems: problems.clone(),
                    at: *at,
                },
            };
        }
        self.verdict()
    }

    /// What can be said of the arguments so far.
    pub fn verdict(&self) -> &Verdict {
        const REFUSED: &Verdict = &Verdict::Hopeless {
            problems: Vec::new(),
            at: 0,
        };
        match &self.read {
            Read::Reading(_, verdict) => verdict,
            Read::Refused(_) => REFUSED,
        }
    }

    /// The arguments as known so far, for a UI: the members and items read, a string as
    /// far as it is written; a number, `true`, `false` or `null` once complete. `null`
    /// before the arguments' `{`.
    pub fn snapshot(&self) -> Value {
        match &self.read {
            Read::Reading(reader, _) => reader.snapshot(&self.text),
            Read::Refused(_) => Value::Null,
        }
    }

    /// The snapshot as a type of the caller's, for a UI that shows a call as it is
    /// written: a type whose fields are all optional (or `#[serde(default)]`) reads any
    /// snapshot, and each field appears as soon as the model has written it (a string
    /// as far as it goes). A type with required fields reads only once they are there.
    ///
    /// ```
    /// # use toolwright::{tool, Context, Registry};
    /// /// Write a file.
    /// #[tool(effect = "write")]
    /// fn write_file(
    ///     /// The path.
    ///     path: String,
    ///     /// The content.
    ///     content: String,
    /// ) -> String { path }
    ///
    /// /// What a progress view shows of a `write_file` being written.
    /// #[derive(serde::Deserialize, Default)]
    /// #[serde(default)]
    /// struct WriteProgress {
    ///     path: Option<String>,
    ///     content: Option<String>,
    /// }
    ///
    /// let registry = Registry::builder().with(WriteFile).build().unwrap();
    /// let mut call = registry.partial_call(&Context::new(), "call_1", "write_file");
    /// call.push(r##"{"path": "notes.md", "content": "# Notes\nFirst"##);
    /// let progress: WriteProgress = call.snapshot_as().unwrap();
    /// assert_eq!(progress.path.as_deref(), Some("notes.md"));
    /// assert_eq!(progress.content.as_deref(), Some("# Notes\nFirst"));
    /// ```
    pub fn snapshot_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match self.snapshot() {
            // Before the arguments' `{`: nothing is known, as an empty object says.
            Value::Null => serde_json::from_value(Value::Object(Default::default())),
            known => serde_json::from_value(known),
        }
    }

    /// The call to dispatch, while its arguments are complete and nothing is wrong (the
    /// call keeps reading: whitespace may still follow).
    pub fn to_call(&self) -> Option<ToolCall> {
        (self.verdict() == &Verdict::Complete).then(|| {
            let mut call = ToolCall::new(self.id.clone(), self.name.clone(), self.text.clone());
            call.written_for = self.written_for;
            call
        })
    }

    /// The arguments' text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The call's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name, as the model wrote it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The stream of this call has ended: the call to dispatch when its arguments are
    /// complete and nothing was found wrong (it then goes through every check of the
    /// registry, as any call), or the result that answers it without running it: why
    /// it is hopeless, every problem listed, or that it was cut before its end (a
    /// token limit, a dropped connection) and must be written again.
    pub fn finish(self) -> Result<ToolCall, Box<ToolResult>> {
        let refusal = self.refusal();
        let mut call = ToolCall::new(self.id, self.name, self.text);
        match refusal {
            None => {
                call.written_for = self.written_for;
                Ok(call)
            }
            Some(error) => Err(Box::new(self.registry.answer_unrun(&call, error))),
        }
    }

    /// What [`PartialCall::finish`] would answer if the stream ended now, without
    /// ending it: `None` while the arguments are complete and nothing is wrong.
    #[cfg_attr(not(feature = "rig"), allow(dead_code))]
    pub(crate) fn answer_now(&self) -> Option<ToolResult> {
        let error = self.refusal()?;
        let call = ToolCall::new(self.id.clone(), self.name.clone(), self.text.clone());
        Some(self.registry.answer_unrun(&call, error))
    }

    /// Why the call must not run if its stream ended now.
    fn refusal(&self) -> Option<ToolError> {
        Some(match &self.read {
            Read::Refused(error) => error.clone(),
            Read::Reading(_, Verdict::Complete) => return None,
            Read::Reading(_, Verdict::Hopeless { problems, .. }) => ToolError::invalid_arguments(
                format!(
                    "the arguments of '{}' cannot be valid: the call was stopped where they went wrong, and did not run",
                    self.name
                ),
                problems.clone(),
            )
            .with_hint("fix every problem listed and write the whole call again"),
            Read::Reading(_, Verdict::Incomplete) => crate::call::cut_off(
                &self.name,
                "the stream ended before its arguments were complete",
                self.text.len(),
            ),
        })
    }
}
