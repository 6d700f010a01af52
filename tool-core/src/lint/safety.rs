//! The safety rules: text aimed at the model, hidden characters and comments,
//! credentials in examples, defaults and URLs.

use serde_json::Value;

use super::view::View;
use super::{Out, screen};

/// Every text of `view` a model reads: the description, the title, and each argument's
/// description (with where it is).
pub(super) fn texts<'a>(view: &View<'a>) -> Vec<(Option<String>, &'a str)> {
    let mut texts = vec![(None, view.spec.description.as_str())];
    if let Some(title) = &view.spec.title {
        texts.push((Some("title".into()), title.as_str()));
    }
    for (argument, schema, _) in &view.arguments {
        if let Some(description) = schema["description"].as_str() {
            texts.push((Some(format!("argument '{argument}'")), description));
        }
    }
    texts
}

/// The safety rules over one tool.
pub(super) fn check(view: &View<'_>, out: &mut Out) {
    let name = view.name;
    for (at, text) in texts(view) {
        let phrases = screen::instructions_in(text);
        if !phrases.is_empty() {
            out.push(
                "safety-model-instruction",
                name,
                at.clone(),
                format!("it speaks to the model ({}): describe the tool, and put instructions to the model in the system prompt", phrases.join(", ")),
            );
        }
        let hidden = screen::count_hidden(text);
        if hidden > 0 {
            out.push(
                "safety-hidden-characters",
                name,
                at.clone(),
                format!("{hidden} invisible character(s): remove them (a person reviewing cannot see what they hide)"),
            );
        }
        if text.contains("<!--") || text.contains("[//]: #") {
            out.push(
                "safety-hidden-comment",
                name,
                at.clone(),
                "a comment is hidden from a person reading the rendered docs, not from the model: remove it".into(),
            );
        }
        if let Some(url) = credentials_in_url(text) {
            out.push(
                "safety-url-credentials",
                name,
                at,
                format!("'{url}' carries a user name and password: remove them"),
            );
        }
    }
    let mut values: Vec<&Value> = view.spec.examples.iter().collect();
    values.extend(
        view.arguments
            .iter()
            .filter_map(|(_, schema, _)| schema.get("default")),
    );
    values.extend(
        view.arguments
            .iter()
            .filter_map(|(_, schema, _)| schema.get("examples")),
    );
    if let Some(secret) = values.into_iter().find_map(secret_in) {
        out.push(
            "safety-secret-in-example",
            name,
            None,
            format!(
                "'{secret}' looks like a credential: use an obvious placeholder ('YOUR_API_KEY')"
            ),
        );
    }
}

/// A URL in `text` with `user:password@`, if any.
fn credentials_in_url(text: &str) -> Option<&str> {
    text.split_whitespace().find(|word| {
        word.find("://").is_some_and(|at| {
            let rest = &word[at + 3..];
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            authority.contains('@')
                && authority
                    .split('@')
                    .next()
                    .is_some_and(|user| user.contains(':'))
        })
    })
}

/// A string inside `value` shaped like a credential, if any.
fn secret_in(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => {
            looks_secret(text).then(|| text.chars().take(12).collect::<String>() + "...")
        }
        Value::Array(items) => items.iter().find_map(secret_in),
        Value::Object(fields) => fields.iter().find_map(|(key, value)| {
            let key = key.to_lowercase();
            let named = [
                "password",
                "passwd",
                "secret",
                "api_key",
                "apikey",
                "token",
                "access_token",
            ]
            .iter()
            .any(|name| key.contains(name));
            match value {
                Value::String(text) if named && !text.is_empty() && !is_placeholder(text) => Some(
                    format!("{key}: {}...", text.chars().take(4).collect::<String>()),
                ),
                _ => secret_in(value),
            }
        }),
        _ => None,
    }
}

/// Whether `text` is an obvious placeholder (`YOUR_API_KEY`, `<token>`, `xxx`).
fn is_placeholder(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("your")
        || lower.contains('<')
        || lower.contains("example")
        || lower.chars().all(|c| c == 'x' || c == '*' || c == '.')
}

/// Whether `text` has the shape of a well-known credential.
fn looks_secret(text: &str) -> bool {
    let prefixed = |prefix: &str, min: usize| {
        text.starts_with(prefix)
            && text.len() >= prefix.len() + min
            && text[prefix.len()..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    prefixed("sk-", 20)
        || prefixed("sk_live_", 16)
        || prefixed("ghp_", 30)
        || prefixed("gho_", 30)
        || prefixed("github_pat_", 30)
        || prefixed("xoxb-", 20)
        || prefixed("xoxp-", 20)
        || prefixed("AIza", 30)
        || (text.starts_with("AKIA")
            && text.len() == 20
            && text
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        || text.starts_with("-----BEGIN") && text.contains("PRIVATE KEY")
}
