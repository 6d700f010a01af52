//! Small general tools: a notes store (context injection, async, constraints on a
//! derived struct) and a unit converter (enums, `Result<T, String>`).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use toolwright::{ToolError, ToolSchema, tool};

/// Notes kept in memory: the context the notes tools share.
#[derive(Debug, Default)]
pub struct Notes {
    notes: Mutex<BTreeMap<String, Note>>,
}

/// A note to keep: a unique title, the text, and tags to find it by.
#[derive(Debug, Clone, Serialize, Deserialize, ToolSchema)]
pub struct Note {
    /// Short title; unique.
    #[arg(min_length = 1, max_length = 80)]
    pub title: String,
    /// The note's text, Markdown.
    pub body: String,
    /// Labels to find the note by.
    #[serde(default)]
    #[arg(max_items = 8, items(min_length = 1, max_length = 32))]
    pub tags: Vec<String>,
}

/// Save a note, replacing the note with the same title.
///
/// Use it when the user asks to remember something; returns whether the note was saved
/// or replaced.
#[tool(effect = "write")]
pub fn save_note(note: Note, #[ctx] notes: &Notes) -> String {
    let title = note.title.clone();
    let replaced = notes
        .notes
        .lock()
        .map(|mut map| map.insert(title.clone(), note).is_some());
    match replaced {
        Ok(true) => format!("Replaced note '{title}'."),
        _ => format!("Saved note '{title}'."),
    }
}

/// Find notes whose title, body or tags contain the text (case-insensitive).
///
/// To read a note in full, search for its exact title. Use it when the user refers to
/// something they wrote down.
#[tool(effect = "read_only", title = "Search notes")]
pub async fn search_notes(
    /// Text to look for, matched literally.
    #[arg(min_length = 1)]
    query: String,
    /// Most notes to return; 10 when omitted.
    #[arg(minimum = 1, maximum = 50)]
    max_results: Option<u32>,
    #[ctx] notes: &Notes,
) -> Result<Vec<Note>, ToolError> {
    let query = query.to_lowercase();
    let limit = max_results.unwrap_or(10) as usize;
    let notes = notes
        .notes
        .lock()
        .map_err(|_| ToolError::internal("the notes store is poisoned"))?;
    Ok(notes
        .values()
        .filter(|note| {
            note.title.to_lowercase().contains(&query)
                || note.body.to_lowercase().contains(&query)
                || note
                    .tags
                    .iter()
                    .any(|tag| tag.to_lowercase().contains(&query))
        })
        .take(limit)
        .cloned()
        .collect())
}

/// A temperature scale.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToolSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
    /// Kelvin, from absolute zero.
    Kelvin,
}

/// Convert a temperature between Celsius, Fahrenheit and Kelvin.
///
/// Use it whenever a temperature must change scale; returns the converted value.
#[tool(
    effect = "read_only",
    example = r#"{"value": 100.0, "from": "celsius", "to": "fahrenheit"}"#
)]
pub fn convert_temperature(
    /// The temperature to convert.
    value: f64,
    /// Scale of `value`.
    from: Scale,
    /// Scale to convert to.
    to: Scale,
) -> Result<f64, String> {
    let kelvin = match from {
        Scale::Celsius => value + 273.15,
        Scale::Fahrenheit => (value - 32.0) * 5.0 / 9.0 + 273.15,
        Scale::Kelvin => value,
    };
    if kelvin < 0.0 {
        return Err(format!("{value} is below absolute zero"));
    }
    Ok(match to {
        Scale::Celsius => kelvin - 273.15,
        Scale::Fahrenheit => (kelvin - 273.15) * 9.0 / 5.0 + 32.0,
        Scale::Kelvin => kelvin,
    })
}
