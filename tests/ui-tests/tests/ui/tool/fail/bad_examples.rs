// Each example is checked against the signature; every mistake is reported at its example.
use toolwright::tool;

/// Book a table.
#[tool(
    effect = "write",
    example = r#"{"restaurant": "Noma", "guests": 4"#,
    example = r#"["Noma", 4]"#,
    example = r#"{"restaurant": "Noma", "guest": 4}"#,
    example = r#"{"guests": "four", "vegetarian": 1, "note": null}"#
)]
fn book_table(
    /// Where.
    restaurant: String,
    /// How many people.
    guests: u8,
    /// Whether everyone is vegetarian.
    vegetarian: Option<bool>,
    /// For the kitchen.
    note: String,
) -> String {
    format!("{restaurant} {guests} {vegetarian:?} {note}")
}

fn main() {}
