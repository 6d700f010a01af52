//! What the reader knows of the schema: each conjunction of subschemas it meets, once,
//! with the facts read from it and its members' and items' ways.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::pattern::PrefixPattern;
use super::prefix::{self, Conjunction, Kind, NumberLimits, Schemas, StringLimits};

/// Every conjunction met so far, once each, with what is read from it and the ways of
/// its members and items, each worked out once: a long array of objects costs a
/// lookup per value, not a walk of the schema.
pub(super) struct Ways<'s> {
    pub(super) schemas: Schemas<'s>,
    pub(super) all: Vec<Way<'s>>,
    /// Whether any way has a pattern read on prefixes (else strings skip looking).
    pub(super) patterns: bool,
}

/// One conjunction and its facts.
pub(super) struct Way<'s> {
    pub(super) conjunction: Conjunction<'s>,
    pub(super) strings: StringLimits<'s>,
    /// Its anchored `pattern`s, compiled to be read on a prefix.
    pub(super) patterns: Vec<Arc<PrefixPattern>>,
    pub(super) closed: Vec<Vec<&'s str>>,
    pub(super) max_items: Option<u64>,
    pub(super) min_items: Option<u64>,
    /// The kinds it allows, one bit each.
    pub(super) kinds: u8,
    pub(super) numbers: NumberLimits,
    /// The members an object must have.
    pub(super) required: Vec<&'s str>,
    /// Whether it lists the values allowed (`enum`, `const`).
    pub(super) lists_values: bool,
    pub(super) members: FxHashMap<String, Children>,
    /// By index, up to the longest `prefixItems` (the rest share the last entry).
    pub(super) items: FxHashMap<usize, Children>,
    pub(super) prefix_items: usize,
}

/// A member's or an item's ways, or why there is no such member or item.
pub(super) type Children = Result<Arc<[usize]>, String>;

#[inline]
pub(super) fn bit(kind: Kind) -> u8 {
    1 << Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

impl<'s> Ways<'s> {
    pub(super) fn add(&mut self, conjunction: Conjunction<'s>) -> usize {
        let kinds = Kind::ALL
            .iter()
            .filter(|kind| prefix::kind_fits(&conjunction, **kind))
            .fold(0, |bits, kind| bits | bit(*kind));
        let prefix_items = (conjunction.iter())
            .filter_map(|schema| schema.get("prefixItems").and_then(Value::as_array))
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        let patterns: Vec<Arc<PrefixPattern>> = (conjunction.iter())
            .filter_map(|schema| schema.get("pattern").and_then(Value::as_str))
            .filter_map(PrefixPattern::new)
            .collect();
        self.patterns |= !patterns.is_empty();
        self.all.push(Way {
            strings: StringLimits::of(&conjunction),
            patterns,
            closed: prefix::closed_names(&conjunction),
            max_items: prefix::max_items(&conjunction),
            min_items: prefix::min_items(&conjunction),
            kinds,
            numbers: NumberLimits::of(&conjunction),
            required: prefix::required(&conjunction),
            lists_values: conjunction
                .iter()
                .any(|schema| schema.contains_key("enum") || schema.contains_key("const")),
            members: FxHashMap::default(),
            items: FxHashMap::default(),
            prefix_items,
            conjunction,
        });
        self.all.len() - 1
    }

    pub(super) fn add_all(&mut self, conjunctions: Vec<Conjunction<'s>>) -> Arc<[usize]> {
        conjunctions
            .into_iter()
            .map(|conjunction| self.add(conjunction))
            .collect()
    }

    #[inline]
    pub(super) fn member(&mut self, way: usize, key: &str) -> Children {
        if let Some(children) = self.all[way].members.get(key) {
            return children.clone();
        }
        let children = (self.schemas)
            .member(&self.all[way].conjunction, key)
            .map(|conjunctions| self.add_all(conjunctions));
        // Bounded: a model may write any number of keys a schema does not close.
        if self.all[way].members.len() < 256 {
            self.all[way]
                .members
                .insert(key.to_owned(), children.clone());
        }
        children
    }

    #[inline]
    pub(super) fn item(&mut self, way: usize, index: usize) -> Children {
        let slot = index.min(self.all[way].prefix_items);
        if let Some(children) = self.all[way].items.get(&slot) {
            return children.clone();
        }
        let children = (self.schemas)
            .item(&self.all[way].conjunction, index)
            .map(|conjunctions| self.add_all(conjunctions));
        self.all[way].items.insert(slot, children.clone());
        children
    }
}
