//! The tools a caller is offered, as a framework declares them: name, description and
//! the parameters read from each definition in the framework's dialect.

use serde_json::Value;

use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// One tool as a framework declares it: its name, description and the JSON Schema of
/// its arguments, lowered for the dialect the framework's provider speaks.
pub(crate) struct Offered {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
}

/// The tools the caller in `ctx` is offered, in `dialect`, read from their definitions
/// ([`Registry::definitions`]: visibility, toggles and deferred loading decide). A
/// provider-hosted tool (one without parameters, such as Anthropic's tool search) has no
/// counterpart in a framework's own tool list and is left out.
pub(crate) fn offered(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
) -> Result<Vec<Offered>, LoweringErrors> {
    let facts = dialect.facts();
    let definitions = registry.definitions(ctx, dialect)?;
    Ok(definitions
        .into_iter()
        .filter_map(|mut definition| {
            let tool = match facts.function {
                Some(key) => definition.get_mut(key)?.take(),
                None => definition,
            };
            let Value::Object(mut tool) = tool else {
                return None;
            };
            let name = tool.remove("name")?.as_str()?.to_owned();
            let parameters = tool.remove(facts.parameters)?;
            let description = match tool.remove("description") {
                Some(Value::String(description)) => description,
                _ => String::new(),
            };
            Some(Offered {
                name,
                description,
                parameters,
            })
        })
        .collect())
}
