//! A string's `pattern` read on a prefix: whether any text that begins with what the
//! model has written so far can still match, decided by walking a lazy DFA of the
//! pattern one byte at a time (the state kept between pieces, so a long string costs a
//! transition per byte, not a search per piece).
//!
//! JSON Schema's patterns are not anchored: a pattern without `^` can always match text
//! still to come, so only an anchored one (`^[a-z]+$`, `^\d{4}-`) can make a prefix
//! hopeless, and the DFA finds that on its own (its state dies). Once part of the text
//! matches, every extension does too, and the pattern is not read further. What the
//! lazy DFA gives up on (a Unicode word boundary meeting a non-ASCII byte, a cache that
//! keeps filling) is left to the check at completion, as is every pattern in a build
//! without the `unicode-patterns` feature, whose engine (`regex-lite`) has no DFA.

use std::sync::Arc;

/// One `pattern`, compiled for reading prefixes.
pub(super) struct PrefixPattern {
    source: String,
    #[cfg(feature = "unicode-patterns")]
    dfa: regex_automata::hybrid::dfa::DFA,
}

/// One string read against one pattern.
pub(super) struct Scan {
    pattern: Arc<PrefixPattern>,
    /// Bytes of the string read so far.
    pub(super) fed: usize,
    #[cfg(feature = "unicode-patterns")]
    cache: regex_automata::hybrid::dfa::Cache,
    #[cfg(feature = "unicode-patterns")]
    state: regex_automata::hybrid::LazyStateID,
}

/// What reading more of the string says.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "unicode-patterns"), allow(dead_code))]
pub(super) enum Fed {
    /// Text still to come may match.
    Open,
    /// No text that begins so can match: the byte (in what was fed) that made it so.
    Dead(usize),
    /// Nothing more to read: the text matches whatever follows, or the DFA gave up.
    Settled,
}

impl PrefixPattern {
    /// `source` compiled for prefixes; `None` where prefixes are not decided (a pattern
    /// that cannot fail on a prefix, one the DFA cannot build, or the feature is off).
    pub(super) fn new(source: &str) -> Option<Arc<Self>> {
        if !source.starts_with('^') {
            return None;
        }
        #[cfg(feature = "unicode-patterns")]
        {
            use regex_automata::MatchKind;
            use regex_automata::hybrid::dfa::DFA;
            let config = DFA::config()
                .match_kind(MatchKind::All)
                .unicode_word_boundary(true);
            let dfa = DFA::builder().configure(config).build(source).ok()?;
            Some(Arc::new(Self {
                source: source.to_owned(),
                dfa,
            }))
        }
        #[cfg(not(feature = "unicode-patterns"))]
        {
            None
        }
    }

    /// The pattern as written.
    pub(super) fn source(&self) -> &str {
        &self.source
    }

    /// A reading of a new string against the pattern; `None` when the DFA cannot start.
    pub(super) fn scan(self: &Arc<Self>) -> Option<Scan> {
        #[cfg(feature = "unicode-patterns")]
        {
            let mut cache = self.dfa.create_cache();
            let start = regex_automata::util::start::Config::new();
            let state = self.dfa.start_state(&mut cache, &start).ok()?;
            Some(Scan {
                pattern: self.clone(),
                fed: 0,
                cache,
                state,
            })
        }
        #[cfg(not(feature = "unicode-patterns"))]
        {
            None
        }
    }
}

impl Scan {
    /// The pattern this scan reads against.
    pub(super) fn pattern(&self) -> &PrefixPattern {
        &self.pattern
    }

    /// Reads the next bytes of the string.
    pub(super) fn feed(&mut self, bytes: &[u8]) -> Fed {
        #[cfg(feature = "unicode-patterns")]
        for (at, byte) in bytes.iter().enumerate() {
            let Ok(next) = self
                .pattern
                .dfa
                .next_state(&mut self.cache, self.state, *byte)
            else {
                return Fed::Settled;
            };
            // A match state says text before this byte matched (a DFA reports a match
            // one byte late): every extension of it matches too.
            if next.is_match() || next.is_quit() {
                return Fed::Settled;
            }
            if next.is_dead() {
                return Fed::Dead(at);
            }
            self.state = next;
        }
        self.fed += bytes.len();
        Fed::Open
    }
}

#[cfg(all(test, feature = "unicode-patterns"))]
mod tests {
    use super::{Fed, PrefixPattern};

    fn read(pattern: &str, text: &str) -> Fed {
        let pattern = PrefixPattern::new(pattern).expect("anchored");
        let mut scan = pattern.scan().unwrap();
        scan.feed(text.as_bytes())
    }

    #[test]
    fn an_anchored_pattern_dies_at_the_first_byte_no_match_can_follow() {
        assert_eq!(read(r"^[a-z]+$", "abc"), Fed::Open);
        assert_eq!(read(r"^[a-z]+$", "ab1c"), Fed::Dead(2));
        assert_eq!(read(r"^\d{4}-\d{2}$", "2026-1"), Fed::Open);
        assert_eq!(read(r"^\d{4}-\d{2}$", "2026/"), Fed::Dead(4));
        // `$`: a byte after the whole match is one too many.
        assert_eq!(read(r"^ab$", "abc"), Fed::Dead(2));
    }

    #[test]
    fn a_match_settles_the_string_and_an_unanchored_pattern_is_not_read() {
        // `^ab` matched by "ab": whatever follows still contains the match.
        assert_eq!(read(r"^ab", "abzzz"), Fed::Settled);
        assert!(PrefixPattern::new("[0-9]{3}").is_none());
        // Across pieces, the state carries on.
        let pattern = PrefixPattern::new(r"^v\d+\.\d+$").unwrap();
        let mut scan = pattern.scan().unwrap();
        assert_eq!(scan.feed(b"v1"), Fed::Open);
        assert_eq!(scan.feed(b"2."), Fed::Open);
        assert_eq!(scan.feed(b"x"), Fed::Dead(0));
    }

    #[test]
    fn what_the_dfa_gives_up_on_is_left_to_completion() {
        // A Unicode word boundary meets a non-ASCII byte: the DFA quits.
        assert_eq!(read(r"^\bé", "é"), Fed::Settled);
    }
}
