//! The incremental read of a call's arguments: JSON text fed in pieces, parsed once (a
//! byte is looked at once, whatever the pieces), each value checked against the schema
//! as it is written (`prefix.rs`), and the value so far kept for a snapshot.

use serde_json::{Map, Value};

use super::prefix::{self, Conjunction, Kind, Schemas, StringLimits};
use crate::error::Problem;
use crate::validate::JsonPath;

/// Where the reader is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// Before a value (whitespace allowed).
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value: `,`, the container's end, or (at the root) only whitespace.
    After,
    /// Inside a string (a key's or a value's).
    Text { key: bool },
    /// After a backslash in a string.
    Escape { key: bool },
    /// Inside `\uXXXX`: the digits read so far, and a high surrogate waiting for its pair.
    Unicode {
        key: bool,
        digits: u8,
        code: u32,
        high: Option<u32>,
    },
    /// After a high surrogate's escape: `\` of its low half expected.
    LowBackslash { key: bool, high: u32 },
    /// After that `\`: `u` expected.
    LowU { key: bool, high: u32 },
    /// Inside a number.
    Number(NumberState),
    /// Inside `true`, `false` or `null`: what is left to read, and the value it is.
    Literal {
        rest: &'static [u8],
        yields: Literal,
    },
    /// The arguments are complete.
    Done,
    /// Nothing more is read: the text is malformed or the value hopeless.
    Stopped,
}

/// `true`, `false` or `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Literal {
    True,
    False,
    Null,
}

/// The JSON number grammar, one state per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberState {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl NumberState {
    fn complete(self) -> bool {
        matches!(
            self,
            NumberState::Zero | NumberState::Int | NumberState::Frac | NumberState::Exp
        )
    }

    fn next(self, byte: u8) -> Option<NumberState> {
        use NumberState::*;
        Some(match (self, byte) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') => Int,
            (Int, b'0'..=b'9') => Int,
            (Zero | Int, b'.') => Dot,
            (Dot | Frac, b'0'..=b'9') => Frac,
            (Zero | Int | Frac, b'e' | b'E') => E,
            (E, b'+' | b'-') => ESign,
            (E | ESign | Exp, b'0'..=b'9') => Exp,
            _ => return None,
        })
    }
}

/// One way the value being written may fit: the schemas it must meet, and the way of its
/// container it belongs to.
struct Candidate<'s> {
    conjunction: Conjunction<'s>,
    /// Its container's candidate this one came from (0 at the root).
    parent: usize,
    alive: bool,
}

/// A value being written, with what it may still be.
struct Frame<'s> {
    kind: Kind,
    candidates: Vec<Candidate<'s>>,
    /// Members or items so far.
    count: u64,
    /// An object's members, or an array's items, so far.
    value: Value,
    /// A string's or a number's text so far, or a key being read.
    text: String,
    /// Characters in `text`, for a string.
    chars: u64,
    /// The key the next member's value belongs to.
    key: Option<String>,
    /// For a string: each candidate's limits.
    strings: Vec<StringLimits<'s>>,
    /// For an object: each candidate's closed member names.
    closed: Vec<Vec<Vec<&'s str>>>,
}

/// What the read has found so far.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Found {
    Incomplete,
    Hopeless { problems: Vec<Problem>, at: usize },
    Complete,
}

/// The incremental reader.
pub(super) struct Reader<'s> {
    schemas: Schemas<'s>,
    /// The alternatives of the arguments object.
    root: Vec<Conjunction<'s>>,
    lex: Lex,
    frames: Vec<Frame<'s>>,
    path: JsonPath,
    /// Bytes read so far.
    offset: usize,
    found: Found,
    /// The complete arguments, once read.
    complete: Option<Value>,
    /// Why candidates died, deepest first (for the report once all have).
    reasons: Vec<Problem>,
    /// Where the text being checked went wrong, when it is not the byte being read (a
    /// run of a string's characters, read in one step).
    pin: Option<usize>,
}

impl<'s> Reader<'s> {
    pub(super) fn new(schema: &'s Value) -> Self {
        let schemas = Schemas { root: schema };
        Self {
            schemas,
            root: schemas.alternatives(schema),
            lex: Lex::Value,
            frames: Vec::new(),
            path: JsonPath::root(),
            offset: 0,
            found: Found::Incomplete,
            complete: None,
            reasons: Vec::new(),
            pin: None,
        }
    }

    pub(super) fn found(&self) -> &Found {
        &self.found
    }

    /// Reads the next piece of the text.
    pub(super) fn push(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if self.lex == Lex::Stopped {
                return;
            }
            if let Lex::Text { key } = self.lex {
                // The common case, a run of plain characters, in one step.
                let run = bytes[at..]
                    .iter()
                    .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
                    .unwrap_or(bytes.len() - at);
                if run > 0 {
                    self.text(key, &piece[at..at + run]);
                    at += run;
                    continue;
                }
            }
            self.byte(bytes[at]);
            at += 1;
        }
    }

    /// The position of the byte being read, in the whole text.
    fn here(&self) -> usize {
        self.offset
    }

    fn byte(&mut self, byte: u8) {
        self.step(byte);
        self.offset += 1;
    }

    /// Plain characters of a string.
    fn text(&mut self, key: bool, run: &str) {
        let start = self.offset;
        self.offset += run.len();
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        let before = frame.text.len();
        frame.text.push_str(run);
        let run = Some((start, before));
        if key {
            self.check_key_prefix(run);
        } else {
            frame.chars += run_chars(&frame.text[before..]);
            self.check_string(false, run);
        }
    }

    fn step(&mut self, byte: u8) {
        match self.lex {
            Lex::Value | Lex::ValueOrEnd => {
                if byte.is_ascii_whitespace() {
                    return;
                }
                if byte == b']' && self.lex == Lex::ValueOrEnd {
                    self.close();
                    return;
                }
                self.begin_value(byte);
            }
            Lex::KeyOrEnd | Lex::Key => {
                if byte.is_ascii_whitespace() {
                } else if byte == b'"' {
                    if let Some(frame) = self.frames.last_mut() {
                        frame.text.clear();
                    }
                    self.lex = Lex::Text { key: true };
                } else if byte == b'}' && self.lex == Lex::KeyOrEnd {
                    self.close();
                } else {
                    self.malformed(byte, "a key in double quotes");
                }
            }
            Lex::Colon => {
                if byte == b':' {
                    self.lex = Lex::Value;
                } else if !byte.is_ascii_whitespace() {
                    self.malformed(byte, "':' after the key");
                }
            }
            Lex::After => {
                if byte.is_ascii_whitespace() {
                    return;
                }
                match (self.frames.last().map(|frame| frame.kind), byte) {
                    (Some(Kind::Object), b',') => self.lex = Lex::Key,
                    (Some(Kind::Object), b'}') => self.close(),
                    (Some(Kind::Array), b',') => {
                        self.lex = Lex::Value;
                        self.check_room_for_another();
                    }
                    (Some(Kind::Array), b']') => self.close(),
                    (Some(Kind::Object), _) => self.malformed(byte, "',' or '}'"),
                    (Some(Kind::Array), _) => self.malformed(byte, "',' or ']'"),
                    _ => self.malformed(byte, "the end of the arguments"),
                }
            }
            Lex::Done => {
                if !byte.is_ascii_whitespace() {
                    self.malformed(byte, "nothing after the arguments' closing '}'");
                }
            }
            Lex::Text { key } => match byte {
                b'"' if key => self.end_key(),
                b'"' => self.end_string(),
                b'\\' => self.lex = Lex::Escape { key },
                _ => self.malformed(byte, "a character (control characters must be escaped)"),
            },
            Lex::Escape { key } => {
                let decoded = match byte {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        self.lex = Lex::Unicode {
                            key,
                            digits: 0,
                            code: 0,
                            high: None,
                        };
                        return;
                    }
                    _ => {
                        return self.malformed(
                            byte,
                            "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                        );
                    }
                };
                self.lex = Lex::Text { key };
                self.push_char(key, decoded);
            }
            Lex::Unicode {
                key,
                digits,
                code,
                high,
            } => {
                let Some(digit) = (byte as char).to_digit(16) else {
                    return self.malformed(byte, "a hexadecimal digit of \\uXXXX");
                };
                let code = code * 16 + digit;
                if digits < 3 {
                    self.lex = Lex::Unicode {
                        key,
                        digits: digits + 1,
                        code,
                        high,
                    };
                    return;
                }
                let surrogate = |range: std::ops::RangeInclusive<u32>| range.contains(&code);
                match high {
                    None if surrogate(0xD800..=0xDBFF) => {
                        self.lex = Lex::LowBackslash { key, high: code };
                    }
                    Some(high) if surrogate(0xDC00..=0xDFFF) => {
                        let scalar = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                        self.lex = Lex::Text { key };
                        self.push_char(key, char::from_u32(scalar).unwrap_or('\u{FFFD}'));
                    }
                    None if !surrogate(0xDC00..=0xDFFF) => {
                        self.lex = Lex::Text { key };
                        self.push_char(key, char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    _ => self.malformed(
                        byte,
                        "a surrogate pair (\\uD800-\\uDBFF, then \\uDC00-\\uDFFF)",
                    ),
                }
            }
            Lex::LowBackslash { key, high } => {
                if byte == b'\\' {
                    self.lex = Lex::LowU { key, high };
                } else {
                    self.malformed(byte, "the low half of a surrogate pair (\\uDC00-\\uDFFF)");
                }
            }
            Lex::LowU { key, high } => {
                if byte == b'u' {
                    self.lex = Lex::Unicode {
                        key,
                        digits: 0,
                        code: 0,
                        high: Some(high),
                    };
                } else {
                    self.malformed(byte, "the low half of a surrogate pair (\\uDC00-\\uDFFF)");
                }
            }
            Lex::Number(state) => match state.next(byte) {
                Some(next) => {
                    self.lex = Lex::Number(next);
                    if let Some(frame) = self.frames.last_mut() {
                        frame.text.push(byte as char);
                    }
                }
                None if state.complete() => {
                    self.end_number();
                    if self.lex != Lex::Stopped {
                        self.step(byte);
                    }
                }
                None => self.malformed(byte, "a digit"),
            },
            Lex::Literal { rest, yields } => {
                if rest.first() != Some(&byte) {
                    return self.malformed(byte, "true, false or null");
                }
                let rest = &rest[1..];
                if rest.is_empty() {
                    self.end_literal(match yields {
                        Literal::True => Value::Bool(true),
                        Literal::False => Value::Bool(false),
                        Literal::Null => Value::Null,
                    });
                } else {
                    self.lex = Lex::Literal { rest, yields };
                }
            }
            Lex::Stopped => {}
        }
    }

    fn push_char(&mut self, key: bool, decoded: char) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        frame.text.push(decoded);
        if key {
            self.check_key_prefix(None);
        } else {
            frame.chars += 1;
            self.check_string(false, None);
        }
    }

    /// The first byte of a value: its kind, and the frame it is read in.
    fn begin_value(&mut self, byte: u8) {
        let (kind, lex) = match byte {
            b'{' => (Kind::Object, Lex::KeyOrEnd),
            b'[' => (Kind::Array, Lex::ValueOrEnd),
            b'"' => (Kind::String, Lex::Text { key: false }),
            b'-' => (Kind::Number, Lex::Number(NumberState::Minus)),
            b'0' => (Kind::Number, Lex::Number(NumberState::Zero)),
            b'1'..=b'9' => (Kind::Number, Lex::Number(NumberState::Int)),
            b't' => (
                Kind::Bool,
                Lex::Literal {
                    rest: b"rue",
                    yields: Literal::True,
                },
            ),
            b'f' => (
                Kind::Bool,
                Lex::Literal {
                    rest: b"alse",
                    yields: Literal::False,
                },
            ),
            b'n' => (
                Kind::Null,
                Lex::Literal {
                    rest: b"ull",
                    yields: Literal::Null,
                },
            ),
            _ => return self.malformed(byte, "a value"),
        };
        // Where it goes: its alternatives, from each living candidate of its container.
        let mut candidates: Vec<Candidate<'s>> = Vec::new();
        let mut refusals: Vec<(usize, String)> = Vec::new();
        match self.frames.last() {
            None => {
                candidates.extend(self.root.iter().map(|conjunction| Candidate {
                    conjunction: conjunction.clone(),
                    parent: 0,
                    alive: true,
                }));
            }
            Some(container) => {
                for (index, parent) in container.candidates.iter().enumerate() {
                    if !parent.alive {
                        continue;
                    }
                    let children = match container.kind {
                        Kind::Object => {
                            let key = container.key.as_deref().unwrap_or_default();
                            self.schemas.member(&parent.conjunction, key)
                        }
                        _ => match prefix::max_items(&parent.conjunction) {
                            Some(most) if container.count >= most => Err(format!(
                                "expected at most {most} items, got more (the array is past maxItems)"
                            )),
                            _ => self
                                .schemas
                                .item(&parent.conjunction, container.count as usize),
                        },
                    };
                    match children {
                        Ok(children) if children.is_empty() => {
                            refusals.push((index, "no value is allowed here".to_owned()))
                        }
                        Ok(children) => {
                            candidates.extend(children.into_iter().map(|conjunction| Candidate {
                                conjunction,
                                parent: index,
                                alive: true,
                            }))
                        }
                        Err(why) => refusals.push((index, why)),
                    }
                }
            }
        }
        // Enter it.
        if let Some(container) = self.frames.last() {
            match container.kind {
                Kind::Object => self
                    .path
                    .push_key(container.key.as_deref().unwrap_or_default()),
                _ => self.path.push_index(container.count as usize),
            }
        }
        let strings = if kind == Kind::String {
            candidates
                .iter()
                .map(|candidate| StringLimits::of(&candidate.conjunction))
                .collect()
        } else {
            Vec::new()
        };
        let closed = if kind == Kind::Object {
            candidates
                .iter()
                .map(|candidate| prefix::closed_names(&candidate.conjunction))
                .collect()
        } else {
            Vec::new()
        };
        let mut text = String::new();
        if kind == Kind::Number {
            text.push(byte as char);
        }
        self.frames.push(Frame {
            kind,
            candidates,
            count: 0,
            value: match kind {
                Kind::Object => Value::Object(Map::new()),
                Kind::Array => Value::Array(Vec::new()),
                _ => Value::Null,
            },
            text,
            chars: 0,
            key: None,
            strings,
            closed,
        });
        self.lex = lex;
        let level = self.frames.len() - 1;
        // The container's candidates with no way for this value die.
        for (index, why) in refusals {
            if level > 0 {
                let problem = Problem::new(self.path.text(), why);
                self.kill(level - 1, index, problem);
            }
        }
        if self.frames.len() <= level || self.lex == Lex::Stopped {
            return;
        }
        // Then those of its own that do not allow its kind: one problem for all.
        let frame = &self.frames[level];
        let living: Vec<&Conjunction<'_>> = (frame.candidates.iter())
            .filter(|candidate| candidate.alive)
            .map(|candidate| &candidate.conjunction)
            .collect();
        let wrong: Vec<usize> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| {
                candidate.alive && !prefix::kind_fits(&candidate.conjunction, kind)
            })
            .map(|(index, _)| index)
            .collect();
        if !wrong.is_empty() {
            let message = prefix::wrong_kind(&living, kind);
            let problem = Problem::new(self.path.text(), message);
            for index in wrong {
                self.kill(level, index, problem.clone());
                if self.lex == Lex::Stopped {
                    return;
                }
            }
        }
        if frame_is_dead(&self.frames[level]) && self.lex != Lex::Stopped {
            // A value with no candidates at all (its container had none living).
            let problem = Problem::new(self.path.text(), "no value is allowed here");
            self.hopeless(vec![problem]);
        }
    }

    /// A key is complete.
    fn end_key(&mut self) {
        self.lex = Lex::Colon;
        if let Some(frame) = self.frames.last_mut() {
            let key = std::mem::take(&mut frame.text);
            frame.key = Some(key);
        }
    }

    /// The key being read against the names the object may have. `run`: where the
    /// run of characters just read starts in the whole text, and in the key.
    fn check_key_prefix(&mut self, run: Option<(usize, usize)>) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, usize, String)> = (frame.closed.iter().enumerate())
            .filter(|(index, closed)| frame.candidates[*index].alive && !closed.is_empty())
            .filter_map(|(index, closed)| {
                prefix::check_key_prefix(closed, &frame.text).map(|(at, why)| (index, at, why))
            })
            .collect();
        for (index, at, why) in dead {
            self.pin = run.map(|(start, before)| start + at.saturating_sub(before));
            self.kill(level, index, Problem::new(self.path.text(), why));
            self.pin = None;
            if self.lex == Lex::Stopped {
                return;
            }
        }
    }

    /// The string being read against its limits (`run` as for keys).
    fn check_string(&mut self, complete: bool, run: Option<(usize, usize)>) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, usize, String)> = (frame.strings.iter().enumerate())
            .filter(|(index, _)| frame.candidates[*index].alive)
            .filter_map(|(index, limits)| {
                limits
                    .check(&frame.text, frame.chars, complete)
                    .map(|(at, why)| (index, at, why))
            })
            .collect();
        for (index, at, why) in dead {
            self.pin = run.map(|(start, before)| start + at.saturating_sub(before));
            self.kill(level, index, Problem::new(self.path.text(), why));
            self.pin = None;
            if self.lex == Lex::Stopped {
                return;
            }
        }
    }

    fn end_string(&mut self) {
        self.check_string(true, None);
        if self.lex == Lex::Stopped {
            return;
        }
        let text = self
            .frames
            .last_mut()
            .map(|frame| std::mem::take(&mut frame.text))
            .unwrap_or_default();
        self.finish_value(Value::String(text));
    }

    fn end_number(&mut self) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, String)> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| candidate.alive)
            .filter_map(|(index, candidate)| {
                prefix::check_number(&candidate.conjunction, &frame.text).map(|why| (index, why))
            })
            .collect();
        for (index, why) in dead {
            self.kill(level, index, Problem::new(self.path.text(), why));
            if self.lex == Lex::Stopped {
                return;
            }
        }
        let text = std::mem::take(&mut self.frames[level].text);
        let value = serde_json::from_str(&text).unwrap_or(Value::Null);
        self.finish_value(value);
    }

    fn end_literal(&mut self, value: Value) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, String)> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| candidate.alive)
            .filter_map(|(index, candidate)| {
                prefix::check_literal(&candidate.conjunction, &value).map(|why| (index, why))
            })
            .collect();
        for (index, why) in dead {
            self.kill(level, index, Problem::new(self.path.text(), why));
            if self.lex == Lex::Stopped {
                return;
            }
        }
        self.finish_value(value);
    }

    /// `]` or `}`: the container's own checks at its end, then it is a value.
    fn close(&mut self) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, String)> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| candidate.alive)
            .filter_map(|(index, candidate)| {
                let why = match &frame.value {
                    Value::Object(members) => {
                        let missing = prefix::missing(&candidate.conjunction, members);
                        (!missing.is_empty()).then(|| {
                            format!(
                                "missing required argument{} {}",
                                if missing.len() == 1 { "" } else { "s" },
                                missing
                                    .iter()
                                    .map(|name| format!("\"{name}\""))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        })
                    }
                    _ => prefix::min_items(&candidate.conjunction)
                        .filter(|&least| frame.count < least)
                        .map(|least| {
                            format!("expected at least {least} items, got {}", frame.count)
                        }),
                };
                why.map(|why| (index, why))
            })
            .collect();
        for (index, why) in dead {
            self.kill(level, index, Problem::new(self.path.text(), why));
            if self.lex == Lex::Stopped {
                return;
            }
        }
        let value = std::mem::take(&mut self.frames[level].value);
        self.finish_value(value);
    }

    /// A value is complete: it joins its container, or is the arguments.
    fn finish_value(&mut self, value: Value) {
        self.frames.pop();
        let Some(container) = self.frames.last_mut() else {
            self.complete = Some(value);
            self.lex = Lex::Done;
            if self.found == Found::Incomplete {
                self.found = Found::Complete;
            }
            return;
        };
        self.path.pop();
        container.count += 1;
        match &mut container.value {
            Value::Object(members) => {
                let key = container.key.take().unwrap_or_default();
                members.insert(key, value);
            }
            Value::Array(items) => items.push(value),
            _ => {}
        }
        self.lex = Lex::After;
    }

    /// A `,` in an array promises another item: an array at its `maxItems` has no room.
    fn check_room_for_another(&mut self) {
        let level = self.frames.len() - 1;
        let frame = &self.frames[level];
        let dead: Vec<(usize, String)> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| candidate.alive)
            .filter_map(|(index, candidate)| {
                prefix::max_items(&candidate.conjunction)
                    .filter(|&most| frame.count >= most)
                    .map(|most| {
                        (
                            index,
                            format!("expected at most {most} items, got more (the array is past maxItems)"),
                        )
                    })
            })
            .collect();
        for (index, why) in dead {
            self.kill(level, index, Problem::new(self.path.text(), why));
            if self.lex == Lex::Stopped {
                return;
            }
        }
    }

    /// The candidate `index` of the value at `level` cannot be, for `problem`: when none
    /// of its container's candidate's ways is left, that one cannot be either.
    fn kill(&mut self, level: usize, index: usize, problem: Problem) {
        let frame = &mut self.frames[level];
        if !frame.candidates[index].alive {
            return;
        }
        frame.candidates[index].alive = false;
        if !self.reasons.contains(&problem) {
            self.reasons.push(problem.clone());
        }
        let parent = frame.candidates[index].parent;
        let siblings_left = frame
            .candidates
            .iter()
            .any(|candidate| candidate.alive && candidate.parent == parent);
        if siblings_left {
            return;
        }
        if level == 0 {
            if !frame.candidates.iter().any(|candidate| candidate.alive) {
                let problems = std::mem::take(&mut self.reasons);
                self.hopeless(problems);
            }
            return;
        }
        self.kill(level - 1, parent, problem);
    }

    fn hopeless(&mut self, problems: Vec<Problem>) {
        self.found = Found::Hopeless {
            problems,
            at: self.pin.unwrap_or(self.here()),
        };
        self.lex = Lex::Stopped;
    }

    fn malformed(&mut self, byte: u8, expected: &str) {
        let got = match byte {
            b' '..=b'~' => format!("'{}'", byte as char),
            _ => format!("byte 0x{byte:02x}"),
        };
        let problem = Problem::new(
            self.path.text(),
            format!(
                "the JSON is malformed at byte {}: expected {expected}, got {got}",
                self.here()
            ),
        );
        self.hopeless(vec![problem]);
    }

    /// The arguments as known so far: the members and items read, the string being
    /// written as far as it is; a number or literal only once complete.
    pub(super) fn snapshot(&self) -> Value {
        if let Some(complete) = &self.complete {
            return complete.clone();
        }
        // From the innermost value out: each joins its container under the container's
        // pending key (or as its next item).
        let mut inner: Option<Value> = None;
        for frame in self.frames.iter().rev() {
            let mut value = match frame.kind {
                Kind::String => Value::String(frame.text.clone()),
                Kind::Object | Kind::Array => frame.value.clone(),
                // Left out until complete: "12" may become "125".
                Kind::Number | Kind::Bool | Kind::Null => {
                    inner = None;
                    continue;
                }
            };
            if let Some(child) = inner.take() {
                match &mut value {
                    Value::Object(members) => {
                        if let Some(key) = &frame.key {
                            members.insert(key.clone(), child);
                        }
                    }
                    Value::Array(items) => items.push(child),
                    _ => {}
                }
            }
            inner = Some(value);
        }
        inner.unwrap_or(Value::Null)
    }
}

fn frame_is_dead(frame: &Frame<'_>) -> bool {
    !frame.candidates.iter().any(|candidate| candidate.alive)
}

/// The characters in a run of a string's text.
fn run_chars(run: &str) -> u64 {
    run.chars().count() as u64
}
