//! The context a caller supplies: values that `#[ctx]` parameters receive.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// A typed map of values that tools receive through `#[ctx]` parameters, one value per
/// type: a workspace handle, a database pool, the caller's credentials.
///
/// ```
/// # use toolwright_core::Context;
/// struct Workspace { root: std::path::PathBuf }
/// let ctx = Context::new().with(Workspace { root: "/tmp".into() });
/// assert!(ctx.get::<Workspace>().is_some());
/// ```
#[derive(Default)]
pub struct Context {
    // A `TypeId` is a hash already: FxHash mixes it cheaply instead of SipHash's rounds.
    values: HashMap<TypeId, (&'static str, Box<dyn Any + Send + Sync>), rustc_hash::FxBuildHasher>,
    /// The shared context this one adds to ([`Context::over`]): what is not here is
    /// looked up there.
    base: Option<Arc<Context>>,
}

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// A context for one request that adds to (or shadows) the values of `base`, which
    /// stays shared: an MCP server puts each request's authenticated
    /// [`Caller`](crate::policy::Caller) over the context every call sees, without
    /// copying it.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolwright_core::Context;
    /// # use toolwright_core::policy::Caller;
    /// struct Database;
    /// let shared = Arc::new(Context::new().with(Database));
    /// let request = Context::over(shared).with(Caller::new("alice", ["reports:read"]));
    /// assert!(request.get::<Database>().is_some());
    /// assert_eq!(request.get::<Caller>().unwrap().id, "alice");
    /// ```
    pub fn over(base: Arc<Context>) -> Self {
        Context {
            values: HashMap::default(),
            base: Some(base),
        }
    }

    /// Adds `value`, replacing a value of the same type.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds `value`, returning the value of the same type it replaces.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.values
            .insert(TypeId::of::<T>(), (type_name::<T>(), Box::new(value)))
            .and_then(|(_, old)| old.downcast().ok().map(|boxed| *boxed))
    }

    /// The value of type `T`, if one was supplied.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        match self.values.get(&TypeId::of::<T>()) {
            Some((_, value)) => value.downcast_ref(),
            None => self.base.as_deref()?.get(),
        }
    }

    /// Whether a value of the given type was supplied.
    pub fn contains(&self, ty: &ContextType) -> bool {
        self.values.contains_key(&ty.id) || self.base.as_ref().is_some_and(|base| base.contains(ty))
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<_> = self.values.values().map(|(name, _)| *name).collect();
        names.sort_unstable();
        let mut debug = f.debug_struct("Context");
        debug.field("types", &names);
        if let Some(base) = &self.base {
            debug.field("base", base);
        }
        debug.finish()
    }
}

/// A type a tool needs from the [`Context`]: what `#[ctx]` parameters ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContextType {
    /// The type's id, to look it up.
    pub id: TypeId,
    /// The type's name, for error messages.
    pub name: &'static str,
}

impl ContextType {
    /// The context type `T`.
    pub fn of<T: 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }
}
