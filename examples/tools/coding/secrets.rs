//! Secrets kept from the model, by name and by value: what `read_env`, `run_command` and
//! `read_file` (for `.env`-style files) show passes through here first.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Whether a variable name looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_uppercase();
    [
        "SECRET",
        "TOKEN",
        "KEY",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
        "PRIVATE",
        "SESSION",
        "COOKIE",
    ]
    .iter()
    .any(|word| upper.contains(word))
}

/// A password in a URL's user info: `scheme://user:PASSWORD@host`.
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:@/]*):(?P<password>[^\s@/]+)@")
        .expect("a valid pattern")
});

/// Well-known token shapes.
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:",
        r"sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}", // OpenAI, Anthropic, Stripe-like
        r"|gh[pousr]_[A-Za-z0-9]{30,}",                       // GitHub tokens
        r"|github_pat_[A-Za-z0-9_]{22,}",                     // GitHub fine-grained tokens
        r"|xox[abposr]-[A-Za-z0-9\-]{10,}",                   // Slack
        r"|(?:AKIA|ASIA)[0-9A-Z]{16}",                        // AWS access key ids
        r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", // JWTs
        r"|glpat-[A-Za-z0-9_\-]{20,}",                        // GitLab
        r"|AIza[0-9A-Za-z_\-]{35}",                           // Google API keys
        r")"
    ))
    .expect("a valid pattern")
});

/// An assignment line: `NAME=value`, `export NAME=value`.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^(?P<head>[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*)(?P<value>[^\r\n]*)")
        .expect("a valid pattern")
});

/// Runs of characters a random secret is written in, long enough to be one.
static CANDIDATES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_\-]{32,}={0,2}").expect("a valid pattern"));

/// Whether `word` looks like a random secret: 32 characters or more, upper case, lower
/// case and digits mixed, and more than 4 bits of entropy per character. Hex digests
/// (commit ids, checksums) stay below 4 bits and are kept; so are words and paths.
fn high_entropy(word: &str) -> bool {
    let has = |test: fn(&char) -> bool| word.chars().any(|c| test(&c));
    if !(has(char::is_ascii_uppercase)
        && has(char::is_ascii_lowercase)
        && has(char::is_ascii_digit))
    {
        return false;
    }
    let mut counts = [0u32; 128];
    for byte in word.bytes() {
        counts[usize::from(byte & 127)] += 1;
    }
    let length = word.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / length;
            -p * p.log2()
        })
        .sum();
    entropy > 4.0
}

/// `text` with every credential-shaped value replaced by [`REDACTED`]: passwords in URLs
/// (scheme, user, host and path kept), well-known token shapes, and long high-entropy
/// strings.
pub fn redact(text: &str) -> Cow<'_, str> {
    let text = URL_PASSWORD.replace_all(text, |caps: &Captures<'_>| {
        format!("{}:{REDACTED}@", &caps["head"])
    });
    let text = match TOKENS.replace_all(&text, REDACTED) {
        Cow::Borrowed(_) => text,
        Cow::Owned(owned) => Cow::Owned(owned),
    };
    let redacted = CANDIDATES.replace_all(&text, |caps: &Captures<'_>| {
        let word = &caps[0];
        if high_entropy(word) {
            REDACTED.to_owned()
        } else {
            word.to_owned()
        }
    });
    match redacted {
        Cow::Borrowed(_) => text,
        Cow::Owned(owned) => Cow::Owned(owned),
    }
}

/// `text` (a command's output, a file) with credentials redacted: values of
/// `NAME=value` lines whose name looks secret, then everything [`redact`] catches. What
/// `run_command` shows, so `cat .env` or a test printing its environment leaks nothing.
pub fn redact_output(text: &str) -> String {
    let assignments = ASSIGNMENT.replace_all(text, |caps: &Captures<'_>| {
        if looks_secret(&caps["name"]) {
            format!("{}[REDACTED - set]", &caps["head"])
        } else {
            caps[0].to_owned()
        }
    });
    redact(&assignments).into_owned()
}

/// A variable's value as the model may see it: redacted whole when the name looks
/// secret (`[REDACTED - set]`: the model learns only that it is set), else with
/// credential-shaped parts redacted.
pub fn redact_variable<'a>(name: &str, value: &'a str) -> Cow<'a, str> {
    if looks_secret(name) {
        Cow::Borrowed("[REDACTED - set]")
    } else {
        redact(value)
    }
}

/// Whether a file is `.env`-style (`.env`, `.env.local`, `prod.env`): `NAME=value` lines
/// that usually hold credentials.
pub fn is_env_file(name: &str) -> bool {
    name == ".env" || name.starts_with(".env.") || name.ends_with(".env")
}

/// A `.env`-style file with each value redacted by its name and its shape.
pub fn redact_env_file(text: &str) -> String {
    text.lines()
        .map(|line| {
            let assignment = line.trim_start().strip_prefix("export ").unwrap_or(line);
            match assignment.split_once('=') {
                Some((name, value)) if !line.trim_start().starts_with('#') => {
                    let shown = redact_variable(name.trim(), value);
                    let prefix = &line[..line.len() - value.len()];
                    format!("{prefix}{shown}")
                }
                _ => redact(line).into_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
