//! The error collector every parse and check function writes to, so a user with three
//! mistakes sees three errors in one build (serde's `internals/ctxt.rs`).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects `syn::Error`s. Must be finished with [`Errors::finish`]; dropping it
/// unchecked panics, so no error can be forgotten.
pub struct Errors {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Errors {
    pub fn new() -> Self {
        Self {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error spanning `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// An error at `span`.
    pub fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    pub fn push(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Errors used after finish")
            .push(error);
    }

    pub fn push_darling(&self, error: darling::Error) {
        for error in error.flatten() {
            self.push(error.into());
        }
    }

    /// All errors combined into one, or `Ok` when there were none.
    pub fn finish(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("Errors finished twice");
        let mut iter = errors.into_iter();
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for error in iter {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("Errors dropped without finish()");
        }
    }
}

/// The candidate closest to `name`, when it is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(name, candidate), candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}
