//! `anyOf` and `oneOf`: which alternative a value was meant for, and what to report
//! when none matches (a tagged union's tags, or the closest alternative's problems).

use serde_json::Value;

use super::compile::{Node, SchemaNode};
use super::json::{JsonPath, json_eq, message, show};
use super::{Issue, IssueKind, Validator, list_values};

impl Validator {
    /// The tag of each alternative, when they form a tagged union: every alternative an
    /// object schema requiring the same property with a `const` (or one-value `enum`)
    /// value, all different.
    fn tags(&self, alternatives: &[usize]) -> Option<Vec<(&str, &Value)>> {
        let mut tags: Vec<(&str, &Value)> = Vec::with_capacity(alternatives.len());
        for &alternative in alternatives {
            let Node::Schema(first) = &self.nodes[alternative] else {
                return None;
            };
            let mut node: &SchemaNode = first;
            // A bare `$ref` to the alternative's definition.
            for _ in 0..8 {
                match (node.reference, node.properties.is_empty()) {
                    (Some(target), true) => match &self.nodes[target] {
                        Node::Schema(target) => node = &**target,
                        Node::Bool(_) => return None,
                    },
                    _ => break,
                }
            }
            let tag = node.properties.iter().find_map(|(name, property)| {
                let Node::Schema(property) = &self.nodes[*property] else {
                    return None;
                };
                let value = property.constant.as_ref().or_else(|| {
                    property
                        .enumeration
                        .as_ref()
                        .filter(|values| values.len() == 1)
                        .map(|values| &values[0])
                })?;
                node.required
                    .contains(name)
                    .then_some((name.as_str(), value))
            })?;
            if tags.first().is_some_and(|(first, _)| *first != tag.0)
                || tags.iter().any(|(_, seen)| json_eq(seen, tag.1))
            {
                return None;
            }
            tags.push(tag);
        }
        (tags.len() > 1).then_some(tags)
    }

    /// A tagged union (serde's internally tagged enums): the tag alone says which
    /// alternative was meant. An unknown or missing tag lists every tag (the closest
    /// alternative would steer the model to one tag it did not mean).
    fn check_tagged(
        &self,
        tags: &[(&str, &Value)],
        alternatives: &[usize],
        value: &Value,
        object: &serde_json::Map<String, Value>,
        path: &mut JsonPath,
        issues: &mut Vec<Issue>,
    ) {
        let (property, _) = tags[0];
        let got = object.get(property);
        if let Some(index) = got.and_then(|got| tags.iter().position(|(_, tag)| json_eq(tag, got)))
        {
            return self.check(alternatives[index], value, path, issues);
        }
        let allowed: Vec<Value> = tags.iter().map(|(_, tag)| (*tag).clone()).collect();
        match got {
            Some(got) => {
                path.push_key(property);
                let message = message!(
                    "must be one of {}, got {}",
                    list_values(&allowed),
                    show(got)
                );
                issues.push(Issue::new(path, IssueKind::Value, message));
                path.pop();
            }
            None => {
                let message = message!(
                    "missing required field '{property}', one of {}",
                    list_values(&allowed)
                );
                issues.push(Issue::new(path, IssueKind::Value, message));
            }
        }
    }

    /// `anyOf` (`exclusive: false`) or `oneOf`. When nothing matches, the problems of the
    /// closest alternative are reported: the one whose mismatches are least about the
    /// value's type and tag, then the one with the fewest problems.
    pub(super) fn check_alternatives(
        &self,
        alternatives: &[usize],
        exclusive: bool,
        value: &Value,
        path: &mut JsonPath,
        issues: &mut Vec<Issue>,
    ) {
        if let Value::Object(object) = value
            && let Some(tags) = self.tags(alternatives)
        {
            return self.check_tagged(&tags, alternatives, value, object, path, issues);
        }
        let mut matched = Vec::new();
        // (type mismatches here, tag mismatches, all problems) of the closest so far.
        let mut best: Option<((usize, usize, usize), Vec<Issue>)> = None;
        for (index, &node) in alternatives.iter().enumerate() {
            let mut inner = Vec::new();
            self.check(node, value, path, &mut inner);
            if inner.is_empty() {
                matched.push(index);
                continue;
            }
            let depth = path.depth();
            let score = (
                inner
                    .iter()
                    .filter(|i| i.kind == IssueKind::Type && i.depth == depth)
                    .count(),
                inner.iter().filter(|i| i.kind == IssueKind::Value).count(),
                inner.len(),
            );
            if best
                .as_ref()
                .is_none_or(|(best_score, _)| score < *best_score)
            {
                best = Some((score, inner));
            }
        }
        match matched.len() {
            0 => {
                if let Some((_, inner)) = best {
                    issues.extend(inner);
                }
            }
            1 => {}
            _ if exclusive => issues.push(Issue::new(
                path,
                IssueKind::Constraint,
                format!(
                    "matches {} of the allowed forms (alternatives {}); it must match exactly one",
                    matched.len(),
                    matched
                        .iter()
                        .map(|i| (i + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => {}
        }
    }
}
