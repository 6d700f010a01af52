//! Turning tools off and on while the registry serves (`Registry::set_enabled`), and
//! telling whoever listens (the MCP server's clients) that the list changed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Registry, RegistryError};

/// Called after the set of enabled tools changed.
type Listener = Arc<dyn Fn() + Send + Sync>;

/// Which tools are on, and who hears of changes.
#[derive(Default)]
pub(crate) struct Switches {
    /// Declared with `RegistryBuilder::with_runtime_toggles`: the set may change while serving.
    pub(crate) toggles: bool,
    /// One per tool, in registration order.
    on: Vec<AtomicBool>,
    /// How many are off: zero is the common case, and costs the dispatcher one load.
    off: AtomicUsize,
    listeners: Mutex<Vec<Listener>>,
}

impl Switches {
    /// `tools` switches, every one on.
    pub(crate) fn new(tools: usize) -> Self {
        Self {
            on: (0..tools).map(|_| AtomicBool::new(true)).collect(),
            ..Self::default()
        }
    }

    /// Whether the tool at `index` is on.
    pub(crate) fn is_on(&self, index: usize) -> bool {
        self.off.load(Ordering::Acquire) == 0
            || self
                .on
                .get(index)
                .is_some_and(|on| on.load(Ordering::Acquire))
    }

    /// Whether any tool is off.
    pub(crate) fn any_off(&self) -> bool {
        self.off.load(Ordering::Acquire) > 0
    }
}

impl Registry {
    /// Whether the set of tools offered may change while serving
    /// ([`RegistryBuilder::with_runtime_toggles`](super::RegistryBuilder::with_runtime_toggles)).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn has_runtime_toggles(&self) -> bool {
        self.switches.toggles
    }

    /// Turns the tool `name` off (`false`: it is not offered, in
    /// [`Registry::definitions`] and an MCP server's tools list, and a call to it is
    /// `unknown_tool`, as if it did not exist) or back on. Returns whether anything
    /// changed; listeners ([`Registry::on_tools_changed`]) hear of each change.
    /// [`Registry::all_definitions`] is the registry's whole contract and still lists it: a
    /// harness that toggles tools sends `definitions`.
    ///
    /// ```
    /// # use toolwright::{tool, Registry};
    /// /// Close the day's books.
    /// #[tool(effect = "write")]
    /// fn close_books() {}
    ///
    /// let registry = Registry::builder()
    ///     .with(CloseBooks)
    ///     .with_runtime_toggles()
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(registry.set_enabled("close_books", false), Ok(true));
    /// assert!(!registry.is_enabled("close_books"));
    /// ```
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<bool, RegistryError> {
        let Some(&index) = self.by_name.get(name) else {
            return Err(self.unknown(name));
        };
        if !self.switches.toggles {
            return Err(RegistryError::TogglesOff {
                name: name.to_owned(),
            });
        }
        let was = self.switches.on[index].swap(enabled, Ordering::AcqRel);
        if was == enabled {
            return Ok(false);
        }
        if enabled {
            self.switches.off.fetch_sub(1, Ordering::AcqRel);
        } else {
            self.switches.off.fetch_add(1, Ordering::AcqRel);
        }
        let listeners = self
            .switches
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for listener in listeners {
            listener();
        }
        Ok(true)
    }

    /// Whether the tool `name` exists and is on.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.by_name
            .get(name)
            .is_some_and(|&index| self.switches.is_on(index))
    }

    /// Calls `listener` after every change [`Registry::set_enabled`] makes (on the
    /// thread that made it: hand long work to another).
    pub fn on_tools_changed(&self, listener: impl Fn() + Send + Sync + 'static) {
        self.switches
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::new(listener));
    }
}
