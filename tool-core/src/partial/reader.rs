//! The incremental read of a call's arguments: JSON text fed in pieces, parsed once (a
//! byte is looked at once, whatever the pieces), each value checked against the schema
//! as it is written (`prefix.rs`), and the value so far kept for a snapshot.

use std::sync::Arc;

use serde_json::Value;

use super::lexer::{Lex, Literal, NumberState, run_chars};
use super::pattern::{Fed, Scan};
use super::prefix::{self, Conjunction, Kind, Schemas};
use super::ways::{Way, Ways, bit};
use crate::error::Problem;
use crate::validate::JsonPath;

/// One way the value being written may fit: the schemas it must meet, and the way of its
/// container it belongs to.
struct Candidate {
    /// Its conjunction, in the reader's `Ways`.
    way: usize,
    /// Its container's candidate this one came from (0 at the root).
    parent: usize,
    alive: bool,
}

/// A value being written, with what it may still be.
struct Frame {
    kind: Kind,
    candidates: Vec<Candidate>,
    /// Members or items so far.
    count: u64,
    /// An object's keys so far (for `required`).
    keys: Vec<String>,
    /// A string's text so far (when a limit reads it), a number's, or a key being read.
    text: String,
    /// Characters in the string so far.
    chars: u64,
    /// The key the next member's value belongs to.
    key: Option<String>,
    /// For a container: where its text is whole (after its `{` or `[`, or after its
    /// last complete member or item); for a string: after its last whole character.
    /// What a snapshot cuts the text at.
    whole: usize,
    /// For a string: whether a limit reads its text (else only its characters are counted).
    keeps_text: bool,
    /// For a string: whether any limit applies (a length, listed values, a pattern).
    limited: bool,
    /// For a string: each anchored pattern of a candidate, read as it is written (the
    /// candidate's index, and the reading).
    scans: Vec<(usize, Scan)>,
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
    ways: Ways<'s>,
    /// The ways of the arguments object.
    root: Arc<[usize]>,
    lex: Lex,
    frames: Vec<Frame>,
    /// Frames done with, kept to be used again (their buffers).
    spare: Vec<Frame>,
    /// A buffer for the candidates of the next value.
    candidates: Vec<Candidate>,
    /// Bytes read so far.
    offset: usize,
    found: Found,
    /// Where the arguments end, once complete.
    end: Option<usize>,
    /// Why candidates died, deepest first (for the report once all have).
    reasons: Vec<Problem>,
    /// Where the text being checked went wrong, when it is not the byte being read (a
    /// run of a string's characters, read in one step).
    pin: Option<usize>,
}

impl<'s> Reader<'s> {
    pub(super) fn new(schema: &'s Value) -> Self {
        let schemas = Schemas { root: schema };
        let mut ways = Ways {
            schemas,
            all: Vec::new(),
            patterns: false,
        };
        let root = ways.add_all(schemas.alternatives(schema));
        Self {
            ways,
            root,
            lex: Lex::Value,
            frames: Vec::new(),
            spare: Vec::new(),
            candidates: Vec::new(),
            offset: 0,
            found: Found::Incomplete,
            end: None,
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
        if key {
            frame.text.push_str(run);
            self.check_key_prefix(Some((start, before)));
        } else {
            frame.chars += run_chars(run);
            frame.whole = self.offset;
            if frame.keeps_text {
                frame.text.push_str(run);
            }
            if frame.limited {
                self.check_string(false, Some((start, before)));
            }
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
        if key {
            frame.text.push(decoded);
            self.check_key_prefix(None);
        } else {
            frame.chars += 1;
            frame.whole = self.offset + 1;
            if frame.keeps_text {
                frame.text.push(decoded);
            }
            if frame.limited {
                self.check_string(false, None);
            }
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
        // Where it goes: its ways, from each living candidate of its container.
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.clear();
        let mut refusals: Vec<(usize, String)> = Vec::new();
        match self.frames.last() {
            None => {
                candidates.extend(self.root.iter().map(|&way| Candidate {
                    way,
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
                            self.ways.member(parent.way, key)
                        }
                        _ => match self.ways.all[parent.way].max_items {
                            Some(most) if container.count >= most => Err(format!(
                                "expected at most {most} items, got more (the array is past maxItems)"
                            )),
                            _ => self.ways.item(parent.way, container.count as usize),
                        },
                    };
                    match children {
                        Ok(children) if children.is_empty() => {
                            refusals.push((index, "no value is allowed here".to_owned()))
                        }
                        Ok(children) => candidates.extend(children.iter().map(|&way| Candidate {
                            way,
                            parent: index,
                            alive: true,
                        })),
                        Err(why) => refusals.push((index, why)),
                    }
                }
            }
        }
        let mut frame = self.spare.pop().unwrap_or_else(Frame::empty);
        frame.kind = kind;
        frame.candidates.append(&mut candidates);
        self.candidates = candidates;
        frame.whole = self.offset + 1;
        if kind == Kind::Number {
            frame.text.push(byte as char);
        }
        if kind == Kind::String {
            let ways = &self.ways.all;
            if self.ways.patterns {
                for (index, candidate) in frame.candidates.iter().enumerate() {
                    let patterns = ways[candidate.way].patterns.iter();
                    let scans = patterns.filter_map(|pattern| Some((index, pattern.scan()?)));
                    frame.scans.extend(scans);
                }
            }
            frame.keeps_text = !frame.scans.is_empty()
                || (frame.candidates.iter())
                    .any(|candidate| !ways[candidate.way].strings.members.is_empty());
            frame.limited = frame.keeps_text
                || (frame.candidates.iter())
                    .any(|candidate| ways[candidate.way].strings.max_length.is_some());
        }
        self.frames.push(frame);
        self.lex = lex;
        let level = self.frames.len() - 1;
        // The container's candidates with no way for this value die.
        for (index, why) in refusals {
            if level > 0 {
                let problem = Problem::new(self.path_text(), why);
                self.kill(level - 1, index, problem);
            }
        }
        if self.frames.len() <= level || self.lex == Lex::Stopped {
            return;
        }
        // Then those of its own that do not allow its kind: one problem for all.
        let frame = &self.frames[level];
        let wrong: Vec<usize> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| {
                candidate.alive && self.ways.all[candidate.way].kinds & bit(kind) == 0
            })
            .map(|(index, _)| index)
            .collect();
        if !wrong.is_empty() {
            let living: Vec<&Conjunction<'_>> = (frame.candidates.iter())
                .filter(|candidate| candidate.alive)
                .map(|candidate| &self.ways.all[candidate.way].conjunction)
                .collect();
            let message = prefix::wrong_kind(&living, kind);
            let problem = Problem::new(self.path_text(), message);
            for index in wrong {
                self.kill(level, index, problem.clone());
                if self.lex == Lex::Stopped {
                    return;
                }
            }
        }
        if frame_is_dead(&self.frames[level]) && self.lex != Lex::Stopped {
            // A value with no candidates at all (its container had none living).
            let problem = Problem::new(self.path_text(), "no value is allowed here");
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
        self.refuse_each(level, run, |way, frame| {
            if way.closed.is_empty() {
                return None;
            }
            prefix::check_key_prefix(&way.closed, &frame.text).map(|(at, why)| (Some(at), why))
        });
    }

    /// The string being read against its limits (`run` as for keys).
    fn check_string(&mut self, complete: bool, run: Option<(usize, usize)>) {
        let level = self.frames.len() - 1;
        self.refuse_each(level, run, |way, frame| {
            (way.strings)
                .check(&frame.text, frame.chars, complete)
                .map(|(at, why)| (Some(at), why))
        });
        if !complete && self.lex != Lex::Stopped && !self.frames[level].scans.is_empty() {
            self.scan_patterns(level, run);
        }
    }

    /// The string's new text read against its candidates' anchored patterns: a
    /// candidate dies at the byte after which no text can match one of them. (A
    /// complete string's patterns are the gate's to check.)
    fn scan_patterns(&mut self, level: usize, run: Option<(usize, usize)>) {
        let frame = &mut self.frames[level];
        let mut dead = Vec::new();
        let mut index = 0;
        while index < frame.scans.len() {
            let (candidate, scan) = &mut frame.scans[index];
            let start = scan.fed;
            match scan.feed(&frame.text.as_bytes()[start..]) {
                Fed::Open => index += 1,
                Fed::Settled => drop(frame.scans.swap_remove(index)),
                Fed::Dead(at) => {
                    let why = format!(
                        "no string beginning \"{}\" matches the pattern {}",
                        prefix::shorten(
                            &frame.text[..frame.text.ceil_char_boundary(start + at + 1)]
                        ),
                        scan.pattern().source()
                    );
                    dead.push((*candidate, start + at, why));
                    frame.scans.swap_remove(index);
                }
            }
        }
        for (candidate, at, why) in dead {
            if !self.frames[level].candidates[candidate].alive {
                continue;
            }
            self.pin = run.map(|(start, before)| start + at.saturating_sub(before));
            self.kill(level, candidate, Problem::new(self.path_text(), why));
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
        self.finish_value(self.offset + 1);
    }

    fn end_number(&mut self) {
        let level = self.frames.len() - 1;
        let number: f64 = self.frames[level].text.parse().unwrap_or(f64::NAN);
        self.refuse_each(level, None, |way, frame| {
            let why = way
                .numbers
                .any()
                .then(|| way.numbers.check(&frame.text, number));
            why.flatten().map(|why| (None, why))
        });
        if self.lex == Lex::Stopped {
            return;
        }
        // Ended by the byte being read, which is not part of it.
        self.finish_value(self.offset);
    }

    fn end_literal(&mut self, value: Value) {
        let level = self.frames.len() - 1;
        self.refuse_each(level, None, |way, _| {
            let why = way
                .lists_values
                .then(|| prefix::check_literal(&way.conjunction, &value));
            why.flatten().map(|why| (None, why))
        });
        if self.lex == Lex::Stopped {
            return;
        }
        self.finish_value(self.offset + 1);
    }

    /// `]` or `}`: the container's own checks at its end, then it is a value.
    fn close(&mut self) {
        let level = self.frames.len() - 1;
        self.refuse_each(level, None, |way, frame| {
            let why = match frame.kind {
                Kind::Object => {
                    let missing: Vec<String> = (way.required.iter())
                        .filter(|name| !frame.keys.iter().any(|key| key == *name))
                        .map(|name| format!("\"{name}\""))
                        .collect();
                    (!missing.is_empty()).then(|| {
                        let plural = if missing.len() == 1 { "" } else { "s" };
                        format!("missing required argument{plural} {}", missing.join(", "))
                    })
                }
                _ => (way.min_items)
                    .filter(|&least| frame.count < least)
                    .map(|least| format!("expected at least {least} items, got {}", frame.count)),
            };
            why.map(|why| (None, why))
        });
        if self.lex == Lex::Stopped {
            return;
        }
        self.finish_value(self.offset + 1);
    }

    /// A value ending before `end` is complete: it joins its container, or is the
    /// arguments.
    fn finish_value(&mut self, end: usize) {
        if let Some(mut done) = self.frames.pop()
            && self.spare.len() < 64
        {
            done.candidates.clear();
            done.scans.clear();
            done.keys.clear();
            done.text.clear();
            done.key = None;
            done.count = 0;
            done.chars = 0;
            self.spare.push(done);
        }
        let Some(container) = self.frames.last_mut() else {
            self.end = Some(end);
            self.lex = Lex::Done;
            if self.found == Found::Incomplete {
                self.found = Found::Complete;
            }
            return;
        };
        container.count += 1;
        container.whole = end;
        if let Some(key) = container.key.take() {
            container.keys.push(key);
        }
        self.lex = Lex::After;
    }

    /// A `,` in an array promises another item: an array at its `maxItems` has no room.
    fn check_room_for_another(&mut self) {
        let level = self.frames.len() - 1;
        self.refuse_each(level, None, |way, frame| {
            (way.max_items)
                .filter(|&most| frame.count >= most)
                .map(|most| {
                    let why = format!(
                        "expected at most {most} items, got more (the array is past maxItems)"
                    );
                    (None, why)
                })
        });
    }

    /// Each living candidate of the value at `level` that `check` refuses dies: why, and
    /// where in the text being checked it went wrong (placed by `run`, as for keys; the
    /// byte being read otherwise). Stops once the arguments are hopeless.
    fn refuse_each(
        &mut self,
        level: usize,
        run: Option<(usize, usize)>,
        check: impl Fn(&Way<'s>, &Frame) -> Option<(Option<usize>, String)>,
    ) {
        let frame = &self.frames[level];
        let ways = &self.ways.all;
        let dead: Vec<(usize, Option<usize>, String)> = (frame.candidates.iter().enumerate())
            .filter(|(_, candidate)| candidate.alive)
            .filter_map(|(index, candidate)| {
                check(&ways[candidate.way], frame).map(|(at, why)| (index, at, why))
            })
            .collect();
        for (index, at, why) in dead {
            self.pin = run
                .zip(at)
                .map(|((start, before), at)| start + at.saturating_sub(before));
            self.kill(level, index, Problem::new(self.path_text(), why));
            self.pin = None;
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

    /// The path of the value being read (`$` for the arguments), from the frames: each
    /// was entered under its container's pending key, or as its next item.
    fn path_text(&self) -> String {
        let mut path = JsonPath::root();
        for container in self.frames.iter().take(self.frames.len().saturating_sub(1)) {
            match container.kind {
                Kind::Object => path.push_key(container.key.as_deref().unwrap_or_default()),
                _ => path.push_index(container.count as usize),
            }
        }
        path.text()
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
            self.path_text(),
            format!(
                "the JSON is malformed at byte {}: expected {expected}, got {got}",
                self.here()
            ),
        );
        self.hopeless(vec![problem]);
    }

    /// The arguments as known so far, from `text` (what was read): the members and
    /// items complete, and the string being written as far as it is; a number, `true`,
    /// `false` or `null` only once complete. The text is cut where it is whole and its
    /// open containers closed, then parsed: what a snapshot costs is a parse of the text
    /// so far, paid by whoever asks, never by the reading.
    pub(super) fn snapshot(&self, text: &str) -> Value {
        if let Some(end) = self.end {
            return serde_json::from_str(&text[..end]).unwrap_or(Value::Null);
        }
        let Some(top) = self.frames.last() else {
            return Value::Null;
        };
        let (cut, open) = match top.kind {
            Kind::String => (top.whole, &self.frames[..]),
            Kind::Object | Kind::Array => (top.whole, &self.frames[..]),
            _ => match self.frames.len().checked_sub(2) {
                Some(container) => (self.frames[container].whole, &self.frames[..=container]),
                None => return Value::Null,
            },
        };
        let mut whole = String::with_capacity(cut + open.len());
        whole.push_str(&text[..cut.min(text.len())]);
        for frame in open.iter().rev() {
            whole.push(match frame.kind {
                Kind::Object => '}',
                Kind::Array => ']',
                _ => '"',
            });
        }
        serde_json::from_str(&whole).unwrap_or(Value::Null)
    }
}

impl Frame {
    fn empty() -> Self {
        Frame {
            kind: Kind::Null,
            candidates: Vec::new(),
            count: 0,
            keys: Vec::new(),
            text: String::new(),
            chars: 0,
            key: None,
            whole: 0,
            keeps_text: false,
            limited: false,
            scans: Vec::new(),
        }
    }
}

fn frame_is_dead(frame: &Frame) -> bool {
    !frame.candidates.iter().any(|candidate| candidate.alive)
}
