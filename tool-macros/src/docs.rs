//! Doc comments → the tool's description and the per-argument docs of a rustdoc
//! `# Arguments` section. `# Errors`, `# Panics`, `# Examples` and `# Safety` are for
//! Rust readers and never sent to the model.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::errors::Errors;

/// Sections rustdoc readers need and a model does not.
const DROPPED_SECTIONS: [&str; 4] = ["errors", "panics", "examples", "safety"];

/// The parsed doc comment of a function, a parameter, a field or a variant.
#[derive(Default)]
pub struct Docs {
    /// The text for the model, sections removed; empty when there is none.
    pub text: String,
    /// Entries of a `# Arguments` section, in order.
    pub args: Vec<ArgDoc>,
    /// A doc attribute could not be read (and was reported).
    pub unreadable: bool,
}

/// One entry of a `# Arguments` list: `` * `name` - text ``.
pub struct ArgDoc {
    pub name: String,
    pub text: String,
    /// The doc line that names the argument, for "no such argument" errors.
    pub span: Span,
}

/// The doc lines of `attrs` with their spans: literal docs (`///`), and the file of a
/// `#[doc = include_str!("path")]`, read from beside the source file as rustc would
/// (the attribute stays on the item, so rustc still tracks the file and rebuilds when
/// it changes). Any other doc expression cannot be read by a macro: an error.
fn doc_lines(attrs: &[Attribute], errors: &Errors) -> (Vec<(String, Span)>, bool) {
    let mut lines = Vec::new();
    let mut unreadable = false;
    for attr in attrs {
        let Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        if !meta.path.is_ident("doc") {
            continue;
        }
        // A literal passed through `macro_rules!` arrives wrapped in an invisible group.
        let mut value = &meta.value;
        while let Expr::Group(group) = value {
            value = &group.expr;
        }
        let text = match value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => text.value(),
            Expr::Macro(call) if call.mac.path.is_ident("include_str") => {
                match included(call, attr.span()) {
                    Ok(text) => text,
                    Err(message) => {
                        errors.error_spanned_by(value, message);
                        unreadable = true;
                        continue;
                    }
                }
            }
            other => {
                errors.error_spanned_by(
                    other,
                    "toolwright reads doc comments when it expands `#[tool]`, before this expression is evaluated: write the text as a doc comment, as `#[doc = include_str!(\"file\")]`, or in `#[tool(description = \"...\")]` / `#[arg(description = \"...\")]`",
                );
                unreadable = true;
                continue;
            }
        };
        for line in text.split('\n') {
            lines.push((line.to_owned(), attr.span()));
        }
    }
    (lines, unreadable)
}

/// The text of `include_str!("path")`, the path taken relative to the directory of the
/// source file that holds it, as `include_str!` does.
fn included(call: &syn::ExprMacro, span: Span) -> Result<String, String> {
    let path: syn::LitStr = call
        .mac
        .parse_body()
        .map_err(|_| "`include_str!` takes one string literal, the file's path".to_owned())?;
    let path = std::path::PathBuf::from(path.value());
    // Outside a compiler run (the macro crate's own unit tests) there is no source file.
    let source = proc_macro::is_available()
        .then(|| span.unwrap().local_file())
        .flatten();
    let full = match (
        path.is_absolute(),
        source.as_deref().and_then(std::path::Path::parent),
    ) {
        (true, _) => path.clone(),
        (false, Some(dir)) => dir.join(&path),
        (false, None) => {
            return Err(format!(
                "toolwright cannot tell which file `{}` is relative to here (the source file is not on disk): write the description as a doc comment or in `#[tool(description = \"...\")]`",
                path.display()
            ));
        }
    };
    std::fs::read_to_string(&full).map_err(|error| {
        format!(
            "toolwright could not read `{}` for the description: {error}",
            full.display()
        )
    })
}

/// Removes the indentation all non-blank lines share (rustdoc writes `/// text` as
/// `" text"`).
fn unindent(lines: &mut [(String, Span)]) {
    let indent = lines
        .iter()
        .filter(|(line, _)| !line.trim().is_empty())
        .map(|(line, _)| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    for (line, _) in lines.iter_mut() {
        *line = if line.trim().is_empty() {
            String::new()
        } else {
            line[indent..].trim_end().to_owned()
        };
    }
}

/// A Markdown heading's title, lower-cased, if `line` is one.
fn heading(line: &str) -> Option<String> {
    let title = line.trim_start_matches('#');
    (title.len() < line.len() && title.starts_with(' ')).then(|| title.trim().to_lowercase())
}

pub fn parse(attrs: &[Attribute], errors: &Errors) -> Docs {
    let (mut lines, unreadable) = doc_lines(attrs, errors);
    unindent(&mut lines);

    let mut docs = Docs {
        unreadable,
        ..Docs::default()
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut section = Section::Description;
    let mut in_fence = false;
    for (line, span) in &lines {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && let Some(title) = heading(line) {
            section = match title.as_str() {
                "arguments" | "parameters" | "args" => Section::Arguments,
                title if DROPPED_SECTIONS.contains(&title) => Section::Dropped,
                _ => Section::Description,
            };
            if section != Section::Description {
                continue;
            }
        }
        match section {
            Section::Description => kept.push(line),
            Section::Dropped => {}
            Section::Arguments => parse_argument_line(line, *span, &mut docs.args),
        }
    }
    docs.text = join_paragraphs(&kept);
    docs
}

#[derive(PartialEq)]
enum Section {
    Description,
    Arguments,
    Dropped,
}

/// Parses `` * `name` - text `` (also `-`/`+` bullets, `:` or `—` separators, and names
/// without backticks); an indented line without a bullet continues the previous entry.
fn parse_argument_line(line: &str, span: Span, args: &mut Vec<ArgDoc>) {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return;
    }
    let bullet = ["* ", "- ", "+ "]
        .iter()
        .find_map(|b| trimmed.strip_prefix(b));
    let Some(entry) = bullet else {
        if let Some(last) = args.last_mut() {
            last.text.push(' ');
            last.text.push_str(trimmed);
        }
        return;
    };
    let entry = entry.trim_start();
    let (name, rest) = match entry.strip_prefix('`') {
        Some(quoted) => match quoted.split_once('`') {
            Some((name, rest)) => (name, rest),
            None => return,
        },
        None => {
            let end = entry
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(entry.len());
            entry.split_at(end)
        }
    };
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '—', '–'])
        .trim();
    args.push(ArgDoc {
        name: name.trim().to_owned(),
        text: text.to_owned(),
        span,
    });
}

/// Joins the kept lines: blank-line runs collapse to one, and the text is trimmed.
fn join_paragraphs(lines: &[&str]) -> String {
    let mut text = String::new();
    let mut blank = false;
    for line in lines {
        if line.is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push_str("\n\n");
            blank = false;
        } else if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> Docs {
        let attrs: Vec<Attribute> = text
            .lines()
            .map(|line| syn::parse_quote!(#[doc = #line]))
            .collect();
        let errors = Errors::new();
        let docs = parse(&attrs, &errors);
        errors.finish().expect("literal docs are always readable");
        docs
    }

    #[test]
    fn arguments_section_becomes_argument_docs() {
        let parsed = docs(
            " Refund a payment.\n\n Use only after confirmation.\n\n # Arguments\n * `customer` - Customer id,\n   like `C-100`.\n - amount: Amount in cents.\n\n # Errors\n Fails when offline.\n\n # Notes\n Kept.",
        );
        assert_eq!(
            parsed.text,
            "Refund a payment.\n\nUse only after confirmation.\n\n# Notes\nKept."
        );
        let args: Vec<_> = parsed
            .args
            .iter()
            .map(|a| (a.name.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(
            args,
            [
                ("customer", "Customer id, like `C-100`."),
                ("amount", "Amount in cents.")
            ]
        );
    }

    #[test]
    fn headings_inside_code_blocks_are_text() {
        let parsed = docs(" Run it.\n ```\n # Examples\n ```");
        assert_eq!(parsed.text, "Run it.\n```\n# Examples\n```");
    }

    #[test]
    fn dropped_sections_are_never_sent() {
        let parsed = docs(" Do it.\n # Panics\n never\n # Safety\n none\n # Examples\n x");
        assert_eq!(parsed.text, "Do it.");
    }
}
