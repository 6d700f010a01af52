use toolwright::tool;

mod stamp {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

/// Record an event.
#[tool(effect = "write")]
fn record(
    #[serde(rename = "when")] at: String,
    #[serde(deserialize_with = "stamp::deserialize")] unix: i64,
) -> String {
    format!("{at} {unix}")
}

fn main() {}
