// A type with neither a JSON Schema nor serde: one error per argument, the one that
// says what to do, and not a second about `Deserialize` from the generated reader.
use toolwright::tool;

/// How long ago something started.
#[tool(effect = "read_only")]
fn elapsed(
    /// When it started.
    since: std::time::Instant,
    /// When it was last seen.
    seen: Option<std::time::Instant>,
) -> String {
    format!("{:?} {:?}", since.elapsed(), seen)
}

fn now() -> std::time::Instant {
    std::time::Instant::now()
}

/// How long ago something started, from now by default.
#[tool(effect = "read_only")]
fn elapsed_since(
    /// When it started.
    #[arg(default = now())]
    since: std::time::Instant,
) -> String {
    format!("{:?}", since.elapsed())
}

fn main() {}
