//! Arguments streamed as values at JSON paths (Vertex AI's `partialArgs`: `{"jsonPath":
//! "$.recipe.steps[1]", "stringValue": "Cook the", "willContinue": true}`), written as
//! the JSON text they stand for, piece by piece, so one reader checks every provider's
//! streams alike.

use serde_json::Value;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A container written and not yet closed.
struct Open {
    /// The step it was entered by (`None` for the arguments object).
    step: Option<Step>,
    array: bool,
    /// Members or items written in it.
    count: usize,
}

/// The JSON text of one call's arguments, from its path-value pieces.
pub(super) struct PathWriter {
    open: Vec<Open>,
    /// The path of a string still being written (its closing quote not yet written).
    string: Option<Vec<Step>>,
    done: bool,
}

impl PathWriter {
    /// A writer that has written the arguments' `{`.
    pub(super) fn new() -> (Self, String) {
        let writer = Self {
            open: vec![Open {
                step: None,
                array: false,
                count: 0,
            }],
            string: None,
            done: false,
        };
        (writer, "{".to_owned())
    }

    /// The text for one `partialArgs` entry. An entry it cannot read (a path it does not
    /// understand, no value) writes a NUL, which the reader finds malformed.
    pub(super) fn piece(&mut self, arg: &Value) -> String {
        let mut text = String::new();
        if self.done {
            return text;
        }
        let Some(path) = arg["jsonPath"].as_str().and_then(parse_path) else {
            // Nothing a path could say: written as is, the reader says it is malformed.
            text.push('\u{0}');
            return text;
        };
        let continues = arg["willContinue"] == Value::Bool(true);
        if let Some(open) = &self.string {
            if *open == path {
                if let Some(more) = arg["stringValue"].as_str() {
                    push_escaped(&mut text, more);
                }
                if !continues {
                    text.push('"');
                    self.string = None;
                }
                return text;
            }
            text.push('"');
            self.string = None;
        }
        let Some((leaf, parents)) = path.split_last() else {
            return text;
        };
        // Close what the new path leaves, then open what it enters.
        let common = self
            .open
            .iter()
            .skip(1)
            .zip(parents)
            .take_while(|(open, step)| open.step.as_ref() == Some(*step))
            .count();
        while self.open.len() > common + 1 {
            let closed = self.open.pop().is_some_and(|open| open.array);
            text.push(if closed { ']' } else { '}' });
        }
        for (at, step) in parents.iter().enumerate().skip(common) {
            self.enter(&mut text, step);
            let array = matches!(parents.get(at + 1).unwrap_or(leaf), Step::Index(_));
            text.push(if array { '[' } else { '{' });
            self.open.push(Open {
                step: Some(step.clone()),
                array,
                count: 0,
            });
        }
        self.enter(&mut text, leaf);
        if let Some(string) = arg.get("stringValue").and_then(Value::as_str) {
            text.push('"');
            push_escaped(&mut text, string);
            if continues {
                self.string = Some(path);
            } else {
                text.push('"');
            }
        } else if let Some(number) = arg.get("numberValue").filter(|n| n.is_number()) {
            text.push_str(&number.to_string());
        } else if let Some(flag) = arg.get("boolValue").and_then(Value::as_bool) {
            text.push_str(if flag { "true" } else { "false" });
        } else if arg.get("nullValue").is_some() {
            text.push_str("null");
        } else {
            text.push('\u{0}');
        }
        text
    }

    /// The text that closes the arguments: an open string, every open container.
    pub(super) fn close(&mut self) -> String {
        let mut text = String::new();
        if self.done {
            return text;
        }
        if self.string.take().is_some() {
            text.push('"');
        }
        while let Some(open) = self.open.pop() {
            text.push(if open.array { ']' } else { '}' });
        }
        self.done = true;
        text
    }

    /// Writes what comes before the member or item `step` of the innermost container: a
    /// comma after an earlier one, the key of a member, `null`s for items skipped.
    fn enter(&mut self, text: &mut String, step: &Step) {
        let Some(container) = self.open.last_mut() else {
            return;
        };
        let separate = |text: &mut String, container: &mut Open| {
            if container.count > 0 {
                text.push(',');
            }
            container.count += 1;
        };
        match step {
            Step::Key(key) => {
                separate(text, container);
                text.push_str(&Value::String(key.clone()).to_string());
                text.push(':');
            }
            Step::Index(index) => {
                while container.count < *index {
                    separate(text, container);
                    text.push_str("null");
                }
                separate(text, container);
            }
        }
    }
}

/// `$.a.b[0]["c d"]` as steps; `None` for what it does not read.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let inside = &after[..end];
            if let Ok(index) = inside.parse::<usize>() {
                steps.push(Step::Index(index));
            } else {
                let quoted = inside.trim_matches(|c| c == '\'' || c == '"');
                steps.push(Step::Key(quoted.to_owned()));
            }
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// `text` escaped as inside a JSON string.
fn push_escaped(out: &mut String, text: &str) {
    let quoted = Value::String(text.to_owned()).to_string();
    out.push_str(&quoted[1..quoted.len() - 1]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(args: &[Value]) -> String {
        let (mut writer, mut text) = PathWriter::new();
        for arg in args {
            text.push_str(&writer.piece(arg));
        }
        text.push_str(&writer.close());
        text
    }

    #[test]
    fn nested_paths_strings_in_pieces_and_numbers_make_the_json_they_stand_for() {
        let text = write(&[
            json!({"jsonPath": "$.recipe.ingredients[0].amount", "stringValue": "16 oz", "willContinue": true}),
            json!({"jsonPath": "$.recipe.ingredients[0].amount", "stringValue": ""}),
            json!({"jsonPath": "$.recipe.ingredients[0].name", "stringValue": "Lasagna \"noodles\"", "willContinue": true}),
            json!({"jsonPath": "$.recipe.ingredients[0].name", "stringValue": ""}),
            json!({"jsonPath": "$.recipe.ingredients[1].amount", "stringValue": "1 lb"}),
            json!({"jsonPath": "$.recipe.steps[0]", "stringValue": "Boil", "willContinue": true}),
            json!({"jsonPath": "$.recipe.steps[0]", "stringValue": " water."}),
            json!({"jsonPath": "$.servings", "numberValue": 6}),
            json!({"jsonPath": "$.vegetarian", "boolValue": false}),
            json!({"jsonPath": "$.note", "nullValue": "NULL_VALUE"}),
        ]);
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(
            value,
            json!({
                "recipe": {
                    "ingredients": [
                        {"amount": "16 oz", "name": "Lasagna \"noodles\""},
                        {"amount": "1 lb"}
                    ],
                    "steps": ["Boil water."]
                },
                "servings": 6,
                "vegetarian": false,
                "note": null
            })
        );
    }

    #[test]
    fn a_string_left_open_is_closed_by_the_next_path_or_the_end() {
        let text = write(&[
            json!({"jsonPath": "$.a", "stringValue": "x", "willContinue": true}),
            json!({"jsonPath": "$.b", "stringValue": "y", "willContinue": true}),
        ]);
        assert_eq!(text, r#"{"a":"x","b":"y"}"#);
        assert_eq!(
            parse_path("$['a b'][2].c"),
            Some(vec![
                Step::Key("a b".into()),
                Step::Index(2),
                Step::Key("c".into())
            ])
        );
        assert_eq!(parse_path("a.b"), None);
    }
}
