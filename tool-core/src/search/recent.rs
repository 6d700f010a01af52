//! The vectors of the queries a search by meaning was asked recently, so a query asked
//! again is not embedded again: bounded, the ones asked again kept longest.

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// The vectors of recent queries, in two generations: a lookup finds a query in either
/// (and brings it into the newer); when the newer holds half the capacity, the older is
/// dropped and the newer becomes it. At most the capacity kept, the ones asked again
/// surviving.
pub(crate) struct Recent {
    capacity: usize,
    newer: FxHashMap<Box<str>, Arc<[f32]>>,
    older: FxHashMap<Box<str>, Arc<[f32]>>,
}

impl Recent {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            newer: FxHashMap::default(),
            older: FxHashMap::default(),
        }
    }

    pub(crate) fn get(&mut self, query: &str) -> Option<Arc<[f32]>> {
        if let Some(vector) = self.newer.get(query) {
            return Some(vector.clone());
        }
        let vector = self.older.remove(query)?;
        self.insert(query, vector.clone());
        Some(vector)
    }

    pub(crate) fn insert(&mut self, query: &str, vector: Arc<[f32]>) {
        if self.capacity == 0 {
            return;
        }
        if self.newer.len() >= self.capacity.div_ceil(2) {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(query.into(), vector);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_queries_are_bounded_and_the_ones_asked_again_survive() {
        let vector = |x: f32| -> Arc<[f32]> { vec![x].into() };
        let mut recent = Recent::new(4);
        for (n, query) in ["a", "b", "c"].into_iter().enumerate() {
            recent.insert(query, vector(n as f32));
        }
        assert!(recent.get("a").is_some(), "a moved to the newer generation");
        recent.insert("d", vector(3.0));
        recent.insert("e", vector(4.0));
        assert!(recent.get("a").is_some());
        assert!(recent.get("b").is_none(), "b was not asked again: dropped");
        assert!(recent.newer.len() + recent.older.len() <= 4);
        let mut none = Recent::new(0);
        none.insert("a", vector(0.0));
        assert!(none.get("a").is_none());
    }
}
