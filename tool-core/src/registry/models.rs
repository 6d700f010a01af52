//! Tool sets per model family: the tools offered only to the models a rule matches
//! ([`RegistryBuilder::offer_only_to`]), and the definitions each set is sent in, kept
//! per dialect and per set.

use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::{Registry, RegistryBuilder};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::model::{Model, Models};

/// How many rendered lists are kept at most (one per dialect and set of rules matched):
/// past it the oldest is dropped.
const KEPT: usize = 32;

/// The rules given with [`RegistryBuilder::offer_only_to`], resolved at `build`.
#[derive(Default)]
pub(super) struct ModelRules {
    /// Each distinct rule once.
    rules: Vec<Models>,
    /// The tool's rule, by the tool's name.
    by_tool: FxHashMap<String, usize>,
    /// Definitions kept per dialect and per the rules a model matches.
    kept: Mutex<Vec<(SetKey, Arc<Vec<Value>>)>>,
}

/// A dialect, and which rules a model matches (the tool set it is offered).
type SetKey = (Dialect, Vec<bool>);

impl ModelRules {
    /// Gives `tools` the rule `models`; a tool given a rule already is offered to the
    /// models either matches.
    pub(super) fn add(&mut self, models: Models, tools: Vec<String>) {
        for tool in tools {
            let models = match self.by_tool.get(&tool) {
                Some(&index) => self.rules[index].clone().or(models.clone()),
                None => models.clone(),
            };
            let index = match self.rules.iter().position(|rule| *rule == models) {
                Some(index) => index,
                None => {
                    self.rules.push(models);
                    self.rules.len() - 1
                }
            };
            self.by_tool.insert(tool, index);
        }
    }

    /// The names the rules were given, for `build` to check.
    pub(super) fn tools(&self) -> impl Iterator<Item = &str> {
        self.by_tool.keys().map(String::as_str)
    }

    /// Whether any tool has a rule.
    pub(super) fn any(&self) -> bool {
        !self.by_tool.is_empty()
    }

    /// Whether the tool `name` is offered to `model`.
    #[inline]
    pub(super) fn offers(&self, model: Option<&Model>, name: &str) -> bool {
        self.by_tool
            .get(name)
            .is_none_or(|&index| self.rules[index].matches(model))
    }

    /// Which rules `model` matches: the tool set it is offered.
    fn key(&self, model: Option<&Model>) -> Vec<bool> {
        self.rules.iter().map(|rule| rule.matches(model)).collect()
    }
}

impl RegistryBuilder {
    /// Offers `tools` only to the models `models` matches: the model a request is for
    /// is the [`Model`] in its context. The others are not shown them
    /// ([`Registry::definitions`]) and a call to one is `unknown_tool`, as for a tool a
    /// visibility rule hides; a context without a `Model` matches only the opposite of
    /// a rule (`!Models::family(..)`). A tool named again is offered to the models
    /// either rule matches; a name no tool has is an error `build` reports.
    ///
    /// A model uses the edit format it was trained on more reliably than a better one it
    /// never saw: give GPT models `apply_patch` and the others `edit_file`, from one
    /// registry.
    ///
    /// ```
    /// # use toolwright::{tool, Context, Dialect, Model, ModelFamily, Models, Registry};
    /// /// Apply a patch in the V4A format.
    /// #[tool(effect = "write")]
    /// fn apply_patch(/** The patch. */ input: String) {}
    ///
    /// /// Replace a string in a file.
    /// #[tool(effect = "write")]
    /// fn edit_file(/** The file. */ path: String, /** The text. */ old: String, /** Its replacement. */ new: String) {}
    ///
    /// let gpt = Models::family(ModelFamily::Gpt);
    /// let registry = Registry::builder()
    ///     .with(ApplyPatch)
    ///     .with(EditFile)
    ///     .offer_only_to(gpt.clone(), ["apply_patch"])
    ///     .offer_only_to(!gpt, ["edit_file"])
    ///     .build()
    ///     .unwrap();
    /// let names = |model: &str| -> Vec<String> {
    ///     let ctx = Context::new().with(Model::new(model));
    ///     let definitions = registry.definitions(&ctx, Dialect::OpenAiResponses { strict: true }).unwrap();
    ///     definitions.iter().map(|definition| definition["name"].as_str().unwrap().to_owned()).collect()
    /// };
    /// assert_eq!(names("gpt-5.1"), ["apply_patch"]);
    /// assert_eq!(names("claude-sonnet-4-5"), ["edit_file"]);
    /// ```
    pub fn offer_only_to(
        mut self,
        models: Models,
        tools: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let tools = tools.into_iter().map(Into::into).collect();
        self.model_rules.add(models, tools);
        self
    }
}

impl Registry {
    /// [`Registry::definitions`], shared: a harness that sends the list on every request
    /// gets a reference count, not a copy. Kept per dialect, and, where only the tool sets
    /// per model ([`RegistryBuilder::offer_only_to`]) decide what is offered, per set: two
    /// requests for models offered the same tools share one list. Where more decides
    /// (a visibility rule, tools turned off, deferred loading), rendered per request as
    /// `definitions` does.
    pub fn definitions_shared(
        &self,
        ctx: &Context,
        dialect: Dialect,
    ) -> Result<Arc<Vec<Value>>, crate::schema::lower::LoweringErrors> {
        if !self.filters() {
            return self.all_definitions_shared(dialect);
        }
        let per_set = !self.has_visibility()
            && !self.switches.any_off()
            && !self.extensions().any(|extension| extension.filters());
        if !per_set {
            return self.definitions(ctx, dialect).map(Arc::new);
        }
        let key = (dialect, self.model_rules.key(ctx.get::<Model>()));
        let kept = |rules: &ModelRules| {
            let kept = rules.kept.lock().unwrap_or_else(PoisonError::into_inner);
            (kept.iter())
                .find(|(kept, _)| *kept == key)
                .map(|(_, definitions)| definitions.clone())
        };
        if let Some(definitions) = kept(&self.model_rules) {
            return Ok(definitions);
        }
        let definitions = Arc::new(self.definitions(ctx, dialect)?);
        let mut kept = (self.model_rules.kept.lock()).unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((key, definitions.clone()));
        Ok(definitions)
    }

    /// Whether the tool `name` is offered to the model the request in `ctx` is for.
    #[inline]
    pub(super) fn offered_to_model(&self, ctx: &Context, name: &str) -> bool {
        !self.model_rules.any() || self.model_rules.offers(ctx.get::<Model>(), name)
    }
}
