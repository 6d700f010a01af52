//! One function per rule. Every rule reports to the shared collector and never stops
//! the others, so all of a function's mistakes show up in one build.

use proc_macro2::Span;
use syn::{FnArg, Pat, Safety, Type};

use crate::ast::{Param, ToolFn};
use crate::attr::{ArgOptions, Constraints, KeywordValue, Number};
use crate::errors::{Errors, closest};

/// Effect classes: as written in `#[tool(effect = "...")]`, the `Effect` variant each
/// names, and its rank (`Effect::rank`: what a tool of the class may do, and so which
/// capabilities it may take). The one table the macros read.
pub const EFFECT_TABLE: [(&str, &str, usize); 5] = [
    ("read_only", "ReadOnly", 0),
    ("write", "Write", 1),
    ("destructive", "Destructive", 2),
    ("external", "External", 3),
    ("dynamic", "Dynamic", 3),
];

/// The effect names, as written in `#[tool(effect = "...")]`.
pub const EFFECTS: [&str; 5] = {
    let mut names = [""; 5];
    let mut i = 0;
    while i < EFFECT_TABLE.len() {
        names[i] = EFFECT_TABLE[i].0;
        i += 1;
    }
    names
};

/// The rank of the effect named `effect`, if it is one.
pub fn effect_rank(effect: &str) -> Option<usize> {
    (EFFECT_TABLE.iter())
        .find(|(name, _, _)| *name == effect)
        .map(|(_, _, rank)| *rank)
}

/// The least risky effect of `rank`.
fn effect_of_rank(rank: usize) -> &'static str {
    (EFFECT_TABLE.iter())
        .find(|(_, _, r)| *r == rank)
        .map_or("external", |(name, _, _)| name)
}

pub fn check_tool(tool: &ToolFn<'_>, errors: &Errors) {
    check_signature(tool, errors);
    check_companion(tool, errors);
    check_name(tool, errors);
    check_description(tool, errors);
    check_effect(tool, errors);
    check_callers(tool, errors);
    check_task(tool, errors);
    check_hooks(tool, errors);
    check_argument_docs(tool, errors);
    crate::example::check_examples(tool, errors);
    check_mcp_headers(tool, errors);
    for param in &tool.params {
        check_param_pattern(param, errors);
        check_param_type(param, errors);
        check_param_attrs(param, errors);
        check_constraints(&param.options, errors);
    }
    check_wire_names(
        tool.args().map(|p| (p.wire_name.as_str(), p.wire_span)),
        NameSource::Parameter,
        errors,
    );
}

/// The companion struct must not clash with a type the signature names: `fn event() ->
/// Event` beside the user's `struct Event` would otherwise fail with rustc's "defined
/// multiple times" and two errors about the derives, none of which mentions `#[tool]`.
/// A type named by one identifier (`Event`, `Vec<Event>`, `Event::Id`) is in scope here,
/// so the companion would clash with it or, after a glob import, silently replace it.
fn check_companion(tool: &ToolFn<'_>, errors: &Errors) {
    if tool.method.is_some() {
        if let Some(companion) = &tool.options.companion {
            errors.error_spanned_by(
                companion,
                "`companion` names the struct `#[tool]` generates beside a free function; a `#[toolset]` method has none: remove it",
            );
        }
        return;
    }
    if let Some(span) = companion_clash(tool) {
        let companion = &tool.companion;
        let function = &tool.item.sig.ident;
        let message = match &tool.options.companion {
            Some(_) => format!(
                "`#[tool(companion = {companion})]` names the generated struct like a type this signature uses: pick another name"
            ),
            None => format!(
                "`#[tool]` generates a unit struct `{companion}` for `fn {function}` (its companion, which implements `Tool`), and this signature uses another type named `{companion}`: the two would clash. Name the companion yourself: `#[tool(companion = {companion}Tool)]`"
            ),
        };
        errors.error_at(span, message);
    }
}

/// Where the signature names a type called like the companion, if it does.
pub fn companion_clash(tool: &ToolFn<'_>) -> Option<Span> {
    if tool.method.is_some() {
        return None;
    }
    let sig = &tool.item.sig;
    let output = &sig.output;
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(typed) => Some(quote::quote!(#typed)),
            FnArg::Receiver(_) => None,
        })
        .chain(std::iter::once(quote::quote!(#output)))
        .find_map(|tokens| single_segment_use(tokens, &tool.companion))
}

/// Where `tokens` name `ident` as a path's first segment (not after `::`).
fn single_segment_use(
    tokens: proc_macro2::TokenStream,
    ident: &syn::Ident,
) -> Option<proc_macro2::Span> {
    use proc_macro2::TokenTree;
    let mut after_colons = false;
    let mut colons = 0;
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => {
                if let Some(span) = single_segment_use(group.stream(), ident) {
                    return Some(span);
                }
                after_colons = false;
                colons = 0;
            }
            TokenTree::Punct(punct) if punct.as_char() == ':' => {
                colons += 1;
                after_colons = colons >= 2;
            }
            TokenTree::Ident(found) => {
                if found == *ident && !after_colons {
                    return Some(found.span());
                }
                after_colons = false;
                colons = 0;
            }
            _ => {
                after_colons = false;
                colons = 0;
            }
        }
    }
    None
}

/// The function must be one the companion can call: no receiver, generics, `unsafe`,
/// `extern`, `const` or variadics.
fn check_signature(tool: &ToolFn<'_>, errors: &Errors) {
    let sig = &tool.item.sig;
    if let Some(constness) = &sig.constness {
        errors.error_spanned_by(
            constness,
            "#[tool] cannot go on a `const fn`: remove `const`",
        );
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.error_spanned_by(
            token,
            "#[tool] cannot go on an `unsafe fn`: a model cannot uphold safety contracts; wrap the unsafe code in a safe function",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.error_spanned_by(
            abi,
            "#[tool] cannot go on an `extern` function: remove the ABI",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.error_spanned_by(
            variadic,
            "#[tool] cannot go on a variadic function: take a `Vec<T>` instead",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.error_spanned_by(
            &sig.generics,
            "#[tool] functions cannot be generic: the schema is fixed at compile time; use concrete types (and `#[ctx] x: &T` for borrowed context)",
        );
    }
    // A toolset's methods have their receivers checked by `#[toolset]`.
    if tool.method.is_none() {
        for input in &sig.inputs {
            if let FnArg::Receiver(receiver) = input {
                errors.error_spanned_by(
                    receiver,
                    "a method is a tool only inside a `#[toolset]` impl block: put `#[toolset]` on the `impl`, or make this a free function that takes the state as a context parameter, `#[ctx] state: &State`",
                );
            }
        }
    }
}

/// `#[arg(mcp_header = "Name")]`: MCP's rules for `x-mcp-header` (SEP-2243), as rmcp
/// checks them: a non-empty HTTP token, unique without regard to case, on a parameter
/// every call gives whose value is a string, an integer or a boolean.
fn check_mcp_headers(tool: &ToolFn<'_>, errors: &Errors) {
    let mut seen: Vec<String> = Vec::new();
    for param in tool.args() {
        let Some(header) = &param.options.mcp_header else {
            continue;
        };
        let span = header.span();
        let name = header.as_str();
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(tchar) {
            errors.error_at(
                span,
                format!("`{name}` is not an HTTP header name: use letters, digits and `-` (an RFC 9110 token), like \"Region\"; the header sent is `Mcp-Param-{name}`"),
            );
        }
        if seen.contains(&name.to_ascii_lowercase()) {
            errors.error_at(
                span,
                format!("two parameters are mirrored into the header `{name}` (header names ignore case): give each its own"),
            );
        }
        seen.push(name.to_ascii_lowercase());
        let plain = matches!(
            crate::ast::kind_of(param.ty),
            Some(crate::ast::Kind::String | crate::ast::Kind::Integer | crate::ast::Kind::Boolean)
        );
        if !plain || param.options.default.is_some() {
            errors.error_at(
                span,
                "`mcp_header` mirrors a value every call gives: the parameter must be a `String`, an integer or a `bool`, not an `Option`, a float or a compound type, and have no default",
            );
        }
    }
}

/// Every provider accepts `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
fn check_name(tool: &ToolFn<'_>, errors: &Errors) {
    let name = &tool.name;
    let bytes = name.as_bytes();
    let valid = matches!(bytes.first(), Some(b) if b.is_ascii_alphabetic() || *b == b'_')
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-');
    if !valid {
        errors.error_at(
            tool.name_span,
            format!(
                "tool name `{name}` is not accepted by every provider: use 1 to 64 ASCII letters, digits, `_` or `-`, starting with a letter or `_` (for example `#[tool(name = \"{}\")]`)",
                suggest_name(name)
            ),
        );
    }
}

fn suggest_name(name: &str) -> String {
    let mut suggestion: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if !suggestion.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        suggestion.insert(0, '_');
        suggestion.truncate(64);
    }
    suggestion
}

/// The model picks tools by their description: a tool without one is a bug.
fn check_description(tool: &ToolFn<'_>, errors: &Errors) {
    // A doc attribute that could not be read has its own error already.
    if tool.description().is_empty() && !tool.docs.unreadable {
        let span = match &tool.options.description {
            Some(description) => description.span(),
            None => tool.item.sig.ident.span(),
        };
        errors.error_at(
            span,
            format!(
                "tool `{}` has no description: the model chooses tools by it. Add a doc comment above the function (`/// What it does and when to use it.`) or `#[tool(description = \"...\")]`",
                tool.name
            ),
        );
    }
}

fn check_effect(tool: &ToolFn<'_>, errors: &Errors) {
    let Some(effect) = &tool.options.effect else {
        return;
    };
    if EFFECTS.contains(&effect.as_str()) {
        return;
    }
    // Words people reach for first, mapped to the class that means them.
    let synonym = match effect
        .to_ascii_lowercase()
        .replace(['-', ' '], "_")
        .as_str()
    {
        "delete" | "remove" | "irreversible" | "dangerous" => Some("destructive"),
        "readonly" | "read" | "safe" | "query" | "get" => Some("read_only"),
        "network" | "remote" | "side_effect" | "money" | "payment" | "email" | "open_world" => {
            Some("external")
        }
        "mutate" | "update" | "modify" | "create" | "edit" => Some("write"),
        _ => None,
    };
    let hint = match synonym.or_else(|| closest(effect, EFFECTS)) {
        Some(close) => format!("; did you mean \"{close}\"?"),
        None => String::new(),
    };
    errors.error_at(
        effect.span(),
        format!(
            "unknown effect \"{}\": use one of \"read_only\", \"write\", \"destructive\", \"external\", \"dynamic\"{hint}",
            effect.as_str()
        ),
    );
}

/// Who may call a tool, as written in `#[tool(callers = "...")]`.
pub const CALLERS: [&str; 3] = ["direct", "code", "any"];

fn check_callers(tool: &ToolFn<'_>, errors: &Errors) {
    check_hosted_code(tool, errors);
    let Some(callers) = &tool.options.callers else {
        return;
    };
    let synonym = |value: &str| match value {
        "model" | "llm" | "tool" => Some("direct"),
        "program" | "programs" | "python" | "sandbox" | "run_code" | "programmatic" => Some("code"),
        "both" | "all" | "everyone" | "*" => Some("any"),
        _ => None,
    };
    check_choice(
        callers,
        &CALLERS,
        synonym,
        "callers",
        "use \"direct\" (the model calls the tool itself), \"code\" (only programs run by `run_code` call it) or \"any\"",
        errors,
    );
}

/// Whether calls may run as tasks, as written in `#[tool(task = "...")]`.
pub const TASK: [&str; 3] = ["forbidden", "optional", "required"];

fn check_task(tool: &ToolFn<'_>, errors: &Errors) {
    let Some(task) = &tool.options.task else {
        return;
    };
    let synonym = |value: &str| match value {
        "true" | "yes" | "allowed" | "allow" | "supported" | "maybe" | "background" | "async"
        | "long" => Some("optional"),
        "always" | "must" | "only" => Some("required"),
        "false" | "no" | "never" | "none" => Some("forbidden"),
        _ => None,
    };
    check_choice(
        task,
        &TASK,
        synonym,
        "task support",
        "use \"optional\" (a client that supports MCP tasks gets one, any other waits for the result), \"required\" (calls run only as tasks) or \"forbidden\" (the default)",
        errors,
    );
}

/// A string attribute value that must be one of `choices`: when it is not, an error at
/// it naming what it is (`what`) and what to use (`usage`), with the choice its words
/// mean (`synonym`, given it in lower case) or the closest one.
fn check_choice(
    value: &darling::util::SpannedValue<String>,
    choices: &[&'static str],
    synonym: impl Fn(&str) -> Option<&'static str>,
    what: &str,
    usage: &str,
    errors: &Errors,
) {
    if choices.contains(&value.as_str()) {
        return;
    }
    let hint = match synonym(&value.to_ascii_lowercase())
        .or_else(|| closest(value, choices.iter().copied()))
    {
        Some(close) => format!("; did you mean \"{close}\"?"),
        None => String::new(),
    };
    errors.error_at(
        value.span(),
        format!("unknown {what} \"{}\": {usage}{hint}", value.as_str()),
    );
}

/// `hosted_code` offers the tool to a provider's programs: its callers must include
/// programs (`"code"` or `"any"`, or undeclared on a read-only tool).
fn check_hosted_code(tool: &ToolFn<'_>, errors: &Errors) {
    let Some(hosted) = tool.options.hosted_code.as_ref().filter(|flag| ***flag) else {
        return;
    };
    let callers = tool.options.callers.as_ref().map(|c| c.as_str());
    let effect = tool.options.effect.as_ref().map(|e| e.as_str());
    let reason = match (callers, effect) {
        (Some("direct"), _) => "`callers = \"direct\"` offers it to no program",
        (None, Some(effect)) if effect != "read_only" => {
            "a tool with side effects is offered to programs only once `callers` says so"
        }
        _ => return,
    };
    errors.error_at(
        hosted.span(),
        format!(
            "`hosted_code` offers the tool to the code a provider runs, but {reason}: add `callers = \"any\"` (the model and programs) or `callers = \"code\"` (programs only)"
        ),
    );
}

/// `classify` goes with `effect = "dynamic"`; one `#[arg(resource)]` at most; scopes
/// are words; context handles carry no more power than the effect admits.
fn check_hooks(tool: &ToolFn<'_>, errors: &Errors) {
    let effect = tool.options.effect.as_ref().map(|e| e.as_str());
    match (&tool.options.classify, effect) {
        (Some(classify), Some(effect)) if effect != "dynamic" => errors.error_spanned_by(
            classify,
            format!("`classify` decides the effect per call, so it needs `effect = \"dynamic\"` (this tool declares \"{effect}\")"),
        ),
        (None, Some("dynamic")) => errors.error_at(
            tool.options.effect.as_ref().map_or(tool.name_span, |e| e.span()),
            "`effect = \"dynamic\"` needs a classifier: `#[tool(effect = \"dynamic\", classify = my_classifier)]`, a function taking the tool's arguments by reference and returning a `toolwright::Effect`",
        ),
        _ => {}
    }
    let resources: Vec<_> = tool
        .params
        .iter()
        .filter_map(|p| p.options.resource.as_ref())
        .collect();
    for extra in resources.iter().skip(1) {
        errors.error_at(
            extra.span(),
            "only one argument can be the `#[arg(resource)]` a call writes",
        );
    }
    if let Some(scopes) = &tool.options.scopes {
        for scope in &scopes.0 {
            if scope.is_empty() || scope.chars().any(char::is_whitespace) {
                errors.error_at(
                    scopes.span(),
                    format!(
                        "scope {scope:?} must be one word without spaces, like \"payments:write\""
                    ),
                );
            }
        }
    }
    let allowed = effect.and_then(effect_rank).unwrap_or(3);
    for param in tool.params.iter().filter(|p| p.ctx.is_some()) {
        let Some((wrapper, needs)) = capability_of(param.ty) else {
            continue;
        };
        if needs > allowed {
            errors.error_spanned_by(
                param.ty,
                format!(
                    "a {} tool cannot take `{wrapper}`: it would receive the means to do more than it declares. Declare the effect it needs (`effect = \"{}\"`), or take a handle without that capability",
                    effect.unwrap_or("external"),
                    effect_of_rank(needs)
                ),
            );
        }
    }
}

/// The capability wrapper a context type is (`Writes<T>`, `Destroys<T>`,
/// `ActsExternally<T>`), and the effect level it needs.
fn capability_of(ty: &Type) -> Option<(String, usize)> {
    let ty = match ty {
        Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let needs = match last.ident.to_string().as_str() {
        "Writes" => 1,
        "Destroys" => 2,
        "ActsExternally" => 3,
        _ => return None,
    };
    Some((tokens(ty), needs))
}

/// A `# Arguments` entry must name a parameter that exists: a stale doc is a build error.
fn check_argument_docs(tool: &ToolFn<'_>, errors: &Errors) {
    let names: Vec<String> = tool
        .params
        .iter()
        .filter_map(|p| p.ident.as_ref())
        .map(|ident| ident.to_string().trim_start_matches("r#").to_owned())
        .collect();
    for doc in &tool.docs.args {
        if names.contains(&doc.name) || tool.params.iter().any(|p| p.wire_name == doc.name) {
            continue;
        }
        let hint = match closest(&doc.name, names.iter().map(String::as_str)) {
            Some(close) => format!("; did you mean `{close}`?"),
            None if names.is_empty() => "; the function takes no parameters".to_owned(),
            None => format!("; the parameters are {}", quoted_list(&names)),
        };
        errors.error_at(
            doc.span,
            format!(
                "the `# Arguments` section documents `{}`, which is not a parameter of `{}`{hint}",
                doc.name, tool.item.sig.ident
            ),
        );
    }
}

fn quoted_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_param_pattern(param: &Param<'_>, errors: &Errors) {
    if param.ident.is_some() {
        return;
    }
    let message = match param.pat {
        Pat::Wild(_) => "a tool parameter needs a name: the model fills arguments in by name".to_owned(),
        _ => "a tool parameter must be a plain name, not a pattern: the model fills arguments in by name. Write `name: Type` and destructure inside the function".to_owned(),
    };
    errors.error_spanned_by(param.pat, message);
}

/// Arguments are owned values read from JSON; only `#[ctx]` parameters may borrow.
fn check_param_type(param: &Param<'_>, errors: &Errors) {
    if param.ctx.is_some() {
        if let Type::Reference(reference) = param.ty
            && let Some(mutability) = &reference.mutability
        {
            errors.error_spanned_by(
                mutability,
                "a `#[ctx]` parameter borrows shared context: take `&T`, and put a `Mutex` inside `T` if the tool must change it",
            );
        }
        return;
    }
    visit_types(param.ty, &mut |ty| match ty {
        Type::Reference(reference) => {
            let owned = owned_suggestion(&reference.elem);
            errors.error_spanned_by(
                ty,
                format!(
                    "a tool argument cannot be a reference: arguments are owned values read from JSON. Use `{owned}` instead, or mark the parameter `#[ctx]` if it comes from the caller's context"
                ),
            );
        }
        Type::ImplTrait(_) => errors.error_spanned_by(
            ty,
            "a tool argument cannot be `impl Trait`: the schema needs a concrete type",
        ),
        Type::TraitObject(_) => errors.error_spanned_by(
            ty,
            "a tool argument cannot be a trait object: the schema needs a concrete type",
        ),
        Type::Infer(_) => errors.error_spanned_by(ty, "a tool argument needs its type written out"),
        _ => {}
    });
}

/// Calls `f` on `ty` and every type nested in it, stopping at references.
fn visit_types<'t>(ty: &'t Type, f: &mut impl FnMut(&'t Type)) {
    f(ty);
    match ty {
        Type::Array(array) => visit_types(&array.elem, f),
        Type::Slice(slice) => visit_types(&slice.elem, f),
        Type::Paren(paren) => visit_types(&paren.elem, f),
        Type::Group(group) => visit_types(&group.elem, f),
        Type::Tuple(tuple) => tuple.elems.iter().for_each(|elem| visit_types(elem, f)),
        Type::Path(path) => {
            for segment in &path.path.segments {
                if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                    for arg in &args.args {
                        if let syn::GenericArgument::Type(inner) = arg {
                            visit_types(inner, f);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn owned_suggestion(elem: &Type) -> String {
    match elem {
        Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
        Type::Path(path) if path.path.is_ident("Path") => "PathBuf".to_owned(),
        Type::Slice(slice) => format!("Vec<{}>", tokens(&slice.elem)),
        other => tokens(other),
    }
}

fn tokens(ty: &Type) -> String {
    quote::quote!(#ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" , ", ", ")
}

fn check_param_attrs(param: &Param<'_>, errors: &Errors) {
    if let (Some(ctx), Some(_)) = (param.ctx, param.arg_attr) {
        errors.error_at(
            ctx,
            "a parameter is either `#[ctx]` (from the caller, not in the schema) or an argument with `#[arg(...)]`, not both",
        );
    }
}

/// Constraint values that contradict each other or cannot be compiled.
pub fn check_constraints(options: &ArgOptions, errors: &Errors) {
    let sources = [
        options
            .schema_with
            .as_ref()
            .map(syn::spanned::Spanned::span),
        options.schema_as.as_ref().map(syn::spanned::Spanned::span),
        options.schemars.as_ref().map(|flag| flag.span()),
    ];
    if let [_, second, ..] = sources.iter().flatten().collect::<Vec<_>>()[..] {
        errors.error_at(
            *second,
            "`schema_with`, `schema_as` and `schemars` each give this value's schema: keep one (`schema_as = Type` borrows a type's schema, `schema_with = path` calls a function that returns one, `schemars` takes the type's `schemars::JsonSchema`)",
        );
    }
    check_constraint_values(&options.constraints, ("#[arg(", ")]"), errors);
    if let Some(items) = &options.items {
        check_constraint_values(items, ("#[arg(items(", "))]"), errors);
    }
}

/// The values of one group of constraints; `attr` opens and closes the attribute as the
/// user wrote it (`#[arg(` … `)]` or `#[arg(items(` … `))]`), for messages.
fn check_constraint_values(
    constraints: &Constraints,
    (attr, close): (&str, &str),
    errors: &Errors,
) {
    let pairs = [
        (
            &constraints.minimum,
            &constraints.maximum,
            "minimum",
            "maximum",
        ),
        (
            &constraints.exclusive_minimum,
            &constraints.exclusive_maximum,
            "exclusive_minimum",
            "exclusive_maximum",
        ),
        (
            &constraints.minimum,
            &constraints.exclusive_maximum,
            "minimum",
            "exclusive_maximum",
        ),
        (
            &constraints.exclusive_minimum,
            &constraints.maximum,
            "exclusive_minimum",
            "maximum",
        ),
    ];
    for (low, high, low_key, high_key) in pairs {
        if let (Some(low), Some(high)) = (low, high) {
            let exclusive = low_key.starts_with("exclusive") || high_key.starts_with("exclusive");
            let empty = if exclusive {
                low.as_f64() >= high.as_f64()
            } else {
                low.as_f64() > high.as_f64()
            };
            if empty {
                errors.error_at(
                    low.span(),
                    format!(
                        "`{attr}{low_key} = {}{close}` is above `{high_key} = {}`: no value can satisfy both; swap them or fix one",
                        number_text(**low),
                        number_text(**high)
                    ),
                );
            }
        }
    }
    if let Some(multiple_of) = &constraints.multiple_of
        && multiple_of.as_f64() <= 0.0
    {
        errors.error_at(
            multiple_of.span(),
            format!("`{attr}multiple_of = ...{close}` must be greater than 0"),
        );
    }
    let counts = [
        (
            &constraints.min_length,
            &constraints.max_length,
            "min_length",
            "max_length",
        ),
        (
            &constraints.min_items,
            &constraints.max_items,
            "min_items",
            "max_items",
        ),
    ];
    for (low, high, low_key, high_key) in counts {
        if let (Some(low), Some(high)) = (low, high)
            && **low > **high
        {
            errors.error_at(
                low.span(),
                format!(
                    "`{attr}{low_key} = {}{close}` is above `{high_key} = {}`: no value can satisfy both; swap them or fix one",
                    **low, **high
                ),
            );
        }
    }
    if let Some(pattern) = &constraints.pattern
        && let Err(error) = regex_syntax::Parser::new().parse(pattern)
    {
        errors.error_at(
            pattern.span(),
            format!("`{attr}pattern = ...{close}` is not a valid regular expression:\n{error}"),
        );
    }
    for keyword in constraints.keywords() {
        if let KeywordValue::Number(Number::Float(value)) = keyword.value
            && !value.is_finite()
        {
            errors.error_at(
                keyword.span,
                format!(
                    "`{attr}{} = ...{close}` must be a finite number",
                    keyword.key
                ),
            );
        }
    }
}

fn number_text(number: Number) -> String {
    match number {
        Number::Int(n) => n.to_string(),
        Number::Float(n) => n.to_string(),
    }
}

/// Where wire names come from: a tool's parameters (`#[arg(rename)]`) or a derived
/// type's fields (`#[serde(rename)]`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NameSource {
    Parameter,
    Field,
    /// The tools of one `#[toolset]` block (their names are checked one by one).
    Tool,
}

/// Wire names must be unique; a tool's parameter names must also be acceptable to every
/// provider (a field's name is checked per target by `registry.check`, since a type may
/// serve targets that take it).
pub fn check_wire_names<'n>(
    names: impl Iterator<Item = (&'n str, Span)>,
    source: NameSource,
    errors: &Errors,
) {
    let mut seen: Vec<&str> = Vec::new();
    for (name, span) in names {
        if name.is_empty() {
            continue;
        }
        if seen.contains(&name) {
            let (what, fix) = match source {
                NameSource::Parameter => (
                    "arguments",
                    "give one a different `#[arg(rename = \"...\")]`",
                ),
                NameSource::Field => (
                    "fields",
                    "give one a different `#[serde(rename = \"...\")]`",
                ),
                NameSource::Tool => (
                    "tools of this toolset",
                    "give one a different `#[tool(name = \"...\")]`",
                ),
            };
            errors.error_at(
                span,
                format!("two {what} are both named `{name}` on the wire: {fix}"),
            );
        }
        seen.push(name);
        if source != NameSource::Parameter {
            continue;
        }
        // Gemini's rule for parameter names, the strictest of the providers'.
        let valid = name.len() <= 64
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            errors.error_at(
                span,
                format!("argument name `{name}` is not accepted by every provider: use 1 to 64 ASCII letters, digits or `_`, starting with a letter or `_` (Gemini's rule, the strictest)"),
            );
        }
    }
}
