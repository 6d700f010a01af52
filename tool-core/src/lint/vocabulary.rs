//! The words the rules look for: lists of verbs, names and phrases, kept apart from the
//! rules that read them.

/// Verbs that say a tool writes.
#[rustfmt::skip]
pub(super) const WRITE_WORDS: &[&str] = &[
    "write", "writes", "create", "creates", "update", "updates", "modify", "modifies", "edit",
    "edits", "save", "saves", "set", "sets", "add", "adds", "insert", "inserts", "change",
    "changes", "rename", "renames", "move", "moves", "append", "appends", "replace",
    "replaces", "store", "stores", "upload", "uploads", "register", "registers", "mark",
    "marks", "apply", "applies", "overwrite", "overwrites", "assign", "assigns", "make",
    "makes", "put", "puts", "patch", "patches", "upsert", "upserts", "commit", "commits",
];

/// Words that say a tool destroys.
#[rustfmt::skip]
pub(super) const DESTROY_WORDS: &[&str] = &[
    "delete", "deletes", "deleted", "remove", "removes", "removed", "erase", "erases", "drop",
    "drops", "destroy", "destroys", "purge", "purges", "wipe", "wipes", "overwrite",
    "overwrites", "truncate", "truncates", "cancel", "cancels", "revoke", "revokes",
    "terminate", "terminates", "kill", "kills", "permanently", "irreversible", "irreversibly",
    "cannot be undone", "can not be undone",
];

/// Words that say a tool reaches outside.
#[rustfmt::skip]
pub(super) const EXTERNAL_WORDS: &[&str] = &[
    "send", "sends", "email", "emails", "mail", "post", "posts", "publish", "publishes", "pay",
    "pays", "payment", "charge", "charges", "refund", "refunds", "transfer", "transfers",
    "order", "orders", "book", "books", "notify", "notifies", "message", "messages", "tweet",
    "call", "calls", "request", "requests", "http", "https", "api", "web", "internet",
    "network", "online", "remote", "external", "third party", "service", "server", "slack",
    "sms", "deploy", "deploys", "money", "invoice", "purchase", "purchases", "buy", "buys",
    "fetch", "fetches", "download", "downloads", "url", "search", "searches",
];

/// Phrases that say when to use a tool (or when not). Chosen on the development half
/// of the description-quality set: explicit guidance ("use when", "instead"), not any
/// "for" or "if".
#[rustfmt::skip]
pub(super) const USAGE_WORDS: &[&str] = &[
    "use when", "use this", "use it", "use for", "useful for", "useful when", "when the user",
    "when you", "call this", "call it", "instead", "before", "after", "unless", "whenever",
    "only when", "only if", "do not use", "don t use", "not for", "ideal for", "best for",
    "designed for", "intended for",
];

/// Words that say what a tool gives back.
#[rustfmt::skip]
pub(super) const RETURN_WORDS: &[&str] = &[
    "return", "returns", "returning", "give", "gives", "list", "lists", "yield", "yields",
    "output", "outputs", "result", "results", "respond", "responds", "report", "reports",
    "show", "shows", "get", "gets", "read", "reads", "fetch", "fetches", "retrieve",
    "retrieves", "provide", "provides", "produce", "produces", "answer", "answers", "with",
];

/// Verbs a tool name may start with.
#[rustfmt::skip]
pub(super) const VERBS: &[&str] = &[
    "get", "list", "search", "find", "read", "write", "create", "update", "delete", "remove",
    "add", "set", "send", "fetch", "run", "execute", "check", "validate", "convert", "compute",
    "calculate", "generate", "open", "close", "start", "stop", "save", "load", "move", "copy",
    "rename", "edit", "query", "lookup", "look", "count", "book", "cancel", "pay", "refund",
    "post", "publish", "upload", "download", "parse", "format", "render", "translate",
    "summarize", "summarise", "analyze", "analyse", "describe", "explain", "compare", "merge",
    "split", "sort", "filter", "replace", "insert", "append", "apply", "approve", "reject",
    "assign", "archive", "restore", "retrieve", "resolve", "schedule", "subscribe", "invite",
    "notify", "reply", "forward", "mark", "tag", "track", "watch", "show", "view", "browse",
    "navigate", "click", "type", "fill", "select", "scroll", "take", "capture", "make",
    "build", "deploy", "install", "test", "lint", "diff", "commit", "push", "pull", "clone",
    "checkout", "merge", "grep", "echo", "ping", "sum", "multiply", "divide", "subtract",
    "play", "pause", "resume", "reset", "clear", "purge", "drop", "kill", "terminate", "sign",
    "login", "logout", "register", "verify", "encode", "decode", "encrypt", "decrypt", "hash",
    "extract", "scrape", "crawl", "index", "embed", "predict", "classify", "detect",
    "recognize", "transcribe", "speak", "say", "ask", "answer", "plan", "think", "wait",
    "sleep", "batch", "bulk", "manage", "handle", "process", "do", "perform", "invoke", "call",
    "request", "submit", "transfer", "buy", "sell", "order", "reserve", "rate", "review",
    "comment", "like", "share", "follow", "block", "mute", "report", "print", "log", "trace",
    "monitor", "measure", "estimate", "forecast", "simulate", "optimize", "solve", "evaluate",
    "inspect", "scan", "audit", "sync", "import", "export", "migrate", "backup", "snapshot",
    "upsert", "patch", "put", "modify", "change", "toggle", "enable", "disable", "allow",
    "deny", "grant", "revoke", "create", "new", "init", "initialize", "setup", "configure",
];

/// Argument names that pick one of a few values.
#[rustfmt::skip]
pub(super) const CHOICE_NAMES: &[&str] = &[
    "mode", "kind", "type", "status", "state", "format", "order", "sort", "level", "category",
    "unit", "units", "method", "strategy", "direction", "priority", "visibility", "role",
    "scope", "severity", "language", "lang", "granularity", "interval", "period", "frequency",
    "style", "tone", "operation", "action", "op",
];

/// Argument names of counts and limits.
#[rustfmt::skip]
pub(super) const COUNT_NAMES: &[&str] = &[
    "limit", "count", "max", "top", "page_size", "per_page", "pagesize", "perpage", "size",
    "n", "num", "number", "k", "top_k", "topk", "results", "max_results", "maxresults",
];

/// Quantities that need a unit, and the unit words that name one.
#[rustfmt::skip]
pub(super) const QUANTITY_NAMES: &[&str] = &[
    "timeout", "duration", "delay", "interval", "wait", "ttl", "age", "expiry", "expires",
    "amount", "price", "cost", "budget", "fee", "distance", "radius", "length", "width",
    "height", "weight", "temperature", "temp", "speed", "elevation", "altitude",
];

#[rustfmt::skip]
pub(super) const UNIT_WORDS: &[&str] = &[
    "ms", "millisecond", "milliseconds", "s", "sec", "secs", "second", "seconds", "minute",
    "minutes", "min", "mins", "hour", "hours", "day", "days", "byte", "bytes", "kb", "mb",
    "gb", "kib", "mib", "gib", "usd", "eur", "gbp", "cents", "cent", "dollars", "euros",
    "currency", "%", "percent", "m", "km", "meter", "meters", "metre", "metres", "mile",
    "miles", "ft", "feet", "inch", "inches", "kg", "g", "gram", "grams", "lb", "lbs", "pound",
    "pounds", "celsius", "fahrenheit", "kelvin", "px", "pixels", "points", "pt", "iso",
    "minor", "units", "unit",
];

/// Words that state a date's or time's format.
#[rustfmt::skip]
pub(super) const FORMAT_WORDS: &[&str] = &[
    "iso", "8601", "rfc", "3339", "yyyy", "mm", "dd", "hh", "unix", "epoch", "timestamp",
    "format", "utc", "z", "2024", "2025", "2026",
];

/// Verbs that mean one act: siblings should use one of each group.
#[rustfmt::skip]
pub(super) const SYNONYMS: &[&[&str]] = &[
    &["get", "fetch", "retrieve", "obtain", "read"],
    &["create", "add", "new", "make", "insert"],
    &["delete", "remove", "destroy", "erase", "drop"],
    &["update", "modify", "edit", "change", "patch"],
    &["search", "find", "query"],
    &["list", "enumerate", "browse"],
];
