//! The byte-level grammar of JSON the reader walks: where it is in the text, the
//! literals, and the number grammar one state per position.

/// Where the reader is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lex {
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
pub(super) enum Literal {
    True,
    False,
    Null,
}

/// The JSON number grammar, one state per position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumberState {
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
    #[inline]
    pub(super) fn complete(self) -> bool {
        matches!(
            self,
            NumberState::Zero | NumberState::Int | NumberState::Frac | NumberState::Exp
        )
    }

    #[inline]
    pub(super) fn next(self, byte: u8) -> Option<NumberState> {
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

/// The characters in a run of a string's text.
#[inline]
pub(super) fn run_chars(run: &str) -> u64 {
    run.chars().count() as u64
}
