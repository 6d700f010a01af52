//! Code as the action: `run_code` runs a program whose every tool call passes the gate a
//! direct call passes. A program that chains lookups and aggregates them; the callers
//! rule enforced in the dispatcher both ways; a table of hostile programs, each refused
//! or harmless; a program that pauses for approval, resumed once (approved, declined,
//! replayed, forged, by another caller).

#[path = "../examples/code_mode/scenario.rs"]
mod scenario;

use crate::support::block_on;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Serialize;
use serde_json::{Value, json};
use toolwright::approval::ApprovalDecision;
use toolwright::code::{CodeLimits, CodeMode};
use toolwright::policy::Caller;
use toolwright::{Context, ErrorKind, Event, Registry, ToolCall, ToolResult, ToolSchema, tool};

/// What the tools did: payouts made, deletions made.
#[derive(Default)]
struct Books {
    payouts: AtomicU32,
    deletions: AtomicU32,
}

/// An open invoice.
#[derive(Serialize, ToolSchema)]
struct Invoice {
    /// The invoice's id.
    id: String,
    /// Amount due, in cents.
    cents: u64,
    /// Whether it is past its due date.
    overdue: bool,
}

/// The open invoices of a customer.
#[tool(effect = "read_only")]
fn invoices(
    /// Customer id, like `C-1`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
) -> Vec<Invoice> {
    let n: u64 = customer[2..].parse().unwrap_or(0);
    (0..n % 3)
        .map(|i| Invoice {
            id: format!("{customer}-{i}"),
            cents: 1000 * (n + i),
            overdue: (n + i).is_multiple_of(2),
        })
        .collect()
}

/// Pay money out to a customer.
#[tool(effect = "external", callers = "any")]
fn pay_out(
    /// Customer id.
    customer: String,
    /// Amount, in cents.
    #[arg(minimum = 1)]
    cents: u64,
    #[ctx] books: &Books,
) -> String {
    let n = books.payouts.fetch_add(1, Ordering::SeqCst) + 1;
    format!("paid {cents} to {customer} (payout #{n})")
}

/// Delete a customer and their invoices.
#[tool(effect = "destructive")]
fn delete_customer(
    /// Customer id.
    customer: String,
    #[ctx] books: &Books,
) -> String {
    books.deletions.fetch_add(1, Ordering::SeqCst);
    format!("deleted {customer}")
}

/// Today's exchange rate of a currency to the euro.
#[tool(effect = "read_only", callers = "code")]
fn exchange_rate(
    /// ISO code, like `USD`.
    currency: String,
) -> f64 {
    if currency == "USD" { 0.9 } else { 1.0 }
}

/// What the registry's observer saw: each call's id and tool, as it started.
type Seen = std::sync::Arc<Mutex<Vec<(String, String)>>>;

fn registry(limits: CodeLimits) -> (Registry, Seen) {
    observed(
        Registry::builder()
            .with(Invoices)
            .with(PayOut)
            .with(DeleteCustomer)
            .with(ExchangeRate)
            .with_code_mode(CodeMode::new().limits(limits))
            .with_approval_secret([7u8; 32]),
    )
}

/// The registry `builder` builds, and what its observer sees start.
fn observed(builder: toolwright::RegistryBuilder) -> (Registry, Seen) {
    let seen: Seen = Default::default();
    let log = seen.clone();
    let registry = builder
        .with_observer(move |event| {
            if let Event::Started { call_id, tool } = event {
                log.lock().unwrap().push((call_id.clone(), tool.clone()));
            }
        })
        .build()
        .unwrap();
    (registry, seen)
}

fn context(caller: &str) -> Context {
    Context::new()
        .with(Caller::new(caller, Vec::<String>::new()))
        .with(Books::default())
}

fn run(registry: &Registry, ctx: &Context, id: &str, program: &str) -> ToolResult {
    let call =
        ToolCall::new(id, "run_code", json!({ "code": program })).with_origin("conversation-1");
    block_on(registry.dispatch(ctx, call))
}

fn value(result: &ToolResult) -> Value {
    match &result.outcome {
        Ok(output) => {
            serde_json::from_str(&output.to_text()).unwrap_or(Value::String(output.to_text()))
        }
        Err(error) => panic!("the run failed: {error:?}"),
    }
}

fn approve(ticket: &toolwright::approval::ApprovalTicket) -> ApprovalDecision {
    ApprovalDecision::Approve {
        digest: ticket.digest.clone(),
    }
}

fn books(ctx: &Context) -> (u32, u32) {
    let books = ctx.get::<Books>().unwrap();
    (
        books.payouts.load(Ordering::SeqCst),
        books.deletions.load(Ordering::SeqCst),
    )
}

const OVERDUE_TOTAL: &str = r#"
customers = [f"C-{n}" for n in range(1, 21)]
lists = await asyncio.gather(*[invoices(c) for c in customers])
overdue = {c: sum(i["cents"] for i in l if i["overdue"]) for c, l in zip(customers, lists)}
late = sorted(c for c, cents in overdue.items() if cents > 0)
rate = await exchange_rate("USD")
{"customers": late, "total": sum(overdue.values()), "in_usd": round(sum(overdue.values()) / rate)}
"#;

#[test]
fn a_program_chains_twenty_lookups_and_returns_only_the_aggregate() {
    let (registry, seen) = registry(CodeLimits::default());
    let ctx = context("ada");
    let result = run(&registry, &ctx, "call-1", OVERDUE_TOTAL);
    // The same answer computed here, directly.
    let mut late = Vec::new();
    let mut total = 0;
    for n in 1..=20 {
        let customer = format!("C-{n}");
        let cents: u64 = invoices(customer.clone())
            .iter()
            .filter(|i| i.overdue)
            .map(|i| i.cents)
            .sum();
        if cents > 0 {
            late.push(customer);
        }
        total += cents;
    }
    late.sort();
    assert_eq!(
        value(&result),
        json!({"customers": late, "total": total, "in_usd": (total as f64 / 0.9).round() as u64})
    );
    // Every nested call went through the dispatcher once, numbered within the run.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0], ("call-1".to_owned(), "run_code".to_owned()));
    let nested: Vec<_> = seen[1..].to_vec();
    assert_eq!(nested.len(), 21);
    for (n, (id, tool)) in nested.iter().enumerate() {
        assert_eq!(id, &format!("call-1/{n}"));
        assert_eq!(tool, if n < 20 { "invoices" } else { "exchange_rate" });
    }
}

#[test]
fn the_stubs_list_the_tools_offered_to_code_and_only_those() {
    let (registry, _) = registry(CodeLimits::default());
    let description = &registry.get("run_code").unwrap().spec().description;
    assert!(description.contains("async def invoices(customer: str) -> list[Invoice]:"));
    assert!(description.contains("async def pay_out(customer: str, cents: int) -> str:"));
    assert!(description.contains("async def exchange_rate(currency: str) -> float:"));
    // Destructive, undeclared: offered to the model directly only.
    assert!(!description.contains("delete_customer"));
    // run_code is not offered to itself.
    assert!(!description.contains("async def run_code"));
}

#[test]
fn the_callers_rule_is_enforced_by_the_dispatcher_both_ways() {
    let (registry, _) = registry(CodeLimits::default());
    let ctx = context("ada");
    // A code-only tool called directly.
    let direct = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("1", "exchange_rate", json!({"currency": "USD"})),
    ));
    let error = direct.error().unwrap();
    assert_eq!(error.kind, ErrorKind::Denied);
    assert!(
        error.message.contains("offered only to programs"),
        "{}",
        error.message
    );
    // A direct-only tool called as if from code, bypassing the stubs.
    let forged = ToolCall::new("2", "delete_customer", json!({"customer": "C-1"}))
        .made_via(toolwright::Via::Code);
    let error = block_on(registry.dispatch(&ctx, forged))
        .error()
        .unwrap()
        .clone();
    assert_eq!(error.kind, ErrorKind::Denied);
    assert!(
        error.message.contains("not offered to programs"),
        "{}",
        error.message
    );
    assert_eq!(books(&ctx), (0, 0));
    // And from a program: the name is not there at all.
    let result = run(&registry, &ctx, "3", "await delete_customer('C-1')");
    let error = result.error().unwrap();
    assert!(error.message.contains("NameError"), "{}", error.message);
    assert_eq!(books(&ctx), (0, 0));
}

/// A hostile program and what must come of it: `Ok(text)` when it ends with a value
/// whose text holds `text`, `Err(text)` when it fails with an error whose message does.
struct Hostile {
    what: &'static str,
    program: &'static str,
    expect: Result<&'static str, &'static str>,
}

const HOSTILE: &[Hostile] = &[
    Hostile {
        what: "read a file",
        program: "open('/etc/passwd').read()",
        expect: Err("PermissionError: the sandbox has no filesystem"),
    },
    Hostile {
        what: "a path's text",
        program: "from pathlib import Path\nPath('/etc/passwd').read_text()",
        expect: Err("PermissionError"),
    },
    Hostile {
        what: "the environment",
        program: "import os\nos.getenv('HOME')",
        expect: Err("the sandbox has no environment"),
    },
    Hostile {
        what: "catch the refusal and go on",
        program: "import os\ntry:\n    os.getenv('HOME')\nexcept PermissionError as e:\n    r = 'refused'\nr",
        expect: Ok("refused"),
    },
    Hostile {
        what: "a socket",
        program: "import socket",
        expect: Err("ModuleNotFoundError"),
    },
    Hostile {
        what: "subprocess",
        program: "import subprocess\nsubprocess.run(['ls'])",
        expect: Err("ModuleNotFoundError"),
    },
    Hostile {
        what: "eval",
        program: "eval('1 + 1')",
        expect: Err("NameError"),
    },
    Hostile {
        what: "exec",
        program: "exec('x = 1')",
        expect: Err("NameError"),
    },
    Hostile {
        what: "__import__",
        program: "__import__('os').system('id')",
        expect: Err("NameError"),
    },
    Hostile {
        what: "introspection",
        program: "().__class__.__base__.__subclasses__()",
        expect: Err("Error"),
    },
    Hostile {
        what: "globals",
        program: "globals()['__builtins__']",
        expect: Err("Error"),
    },
    Hostile {
        what: "a loop that never ends",
        program: "while True:\n    pass",
        expect: Err("time limit exceeded"),
    },
    Hostile {
        what: "one huge value",
        program: "x = 'a' * (10**10)\nlen(x)",
        expect: Err("MemoryError"),
    },
    Hostile {
        what: "deep recursion",
        program: "def f(n):\n    return f(n + 1)\nf(0)",
        expect: Err("RecursionError"),
    },
    Hostile {
        what: "a print flood",
        program: "while True:\n    print('x' * 1000)",
        expect: Err("time limit exceeded"),
    },
    Hostile {
        what: "too many tool calls",
        program: "for i in range(100):\n    await invoices('C-1')",
        expect: Err("more than 10 tool calls"),
    },
    Hostile {
        what: "a name that is no tool",
        program: "await send_all_the_money()",
        expect: Err("NameError"),
    },
    Hostile {
        what: "a direct-only tool",
        program: "await delete_customer(customer='C-1')",
        expect: Err("NameError"),
    },
    Hostile {
        what: "a direct-only tool through the host's own function",
        program: "await __tool_run(__tool_made('delete_customer', (), {'customer': 'C-1'}))",
        expect: Err("NameError: 'delete_customer' is not a tool's function"),
    },
    Hostile {
        what: "a call number never made",
        program: "await __tool_run(99)",
        expect: Err("RuntimeError: __tool_run() is the tools' own"),
    },
    Hostile {
        what: "a call awaited twice through the host's own function",
        program: "n = __tool_made('invoices', ('C-1',), {})\nawait __tool_run(n)\nawait __tool_run(n)",
        expect: Err("RuntimeError: __tool_run() is the tools' own"),
    },
    Hostile {
        what: "invalid arguments",
        program: "await invoices('bob')",
        expect: Err("ValueError: invalid_arguments"),
    },
    Hostile {
        what: "invalid arguments, caught",
        program: "try:\n    await invoices('bob')\nexcept ToolError as e:\n    r = str(e)\nr",
        expect: Ok("$.customer"),
    },
    Hostile {
        what: "an unknown keyword",
        program: "await invoices(client='C-1')",
        expect: Err("$.client: invoices() has no argument 'client'; it takes customer"),
    },
    Hostile {
        what: "too many positional arguments",
        program: "await invoices('C-1', 2)",
        expect: Err("takes 1 positional argument"),
    },
    Hostile {
        what: "a syntax error",
        program: "def (:",
        expect: Err("does not compile"),
    },
    Hostile {
        what: "a class that inherits",
        program: "class E(Exception):\n    pass",
        expect: Err("does not compile"),
    },
    Hostile {
        what: "a value with no JSON form",
        program: "def f():\n    pass\nf",
        expect: Err("cannot be sent back"),
    },
];

#[test]
fn hostile_programs_are_refused_or_harmless() {
    let limits = CodeLimits::default()
        .tool_calls(10)
        .cpu_time(std::time::Duration::from_millis(300))
        .printed_bytes(5_000);
    let (registry, seen) = registry(limits);
    let mut failures = Vec::new();
    for (n, case) in HOSTILE.iter().enumerate() {
        let ctx = context("mallory");
        let result = run(&registry, &ctx, &format!("h{n}"), case.program);
        let text = match &result.outcome {
            Ok(output) => Ok(output.to_text()),
            Err(error) => Err(format!("{}: {}", error.kind.as_str(), error.message)),
        };
        let good = match (&case.expect, &text) {
            (Ok(want), Ok(got)) => got.contains(want),
            (Err(want), Err(got)) => got.contains(want),
            _ => false,
        };
        if std::env::var("SHOW_HOSTILE").is_ok() {
            eprintln!("== {}\n{text:?}\n", case.what);
        }
        if !good {
            failures.push(format!(
                "{}: expected {:?}, got {text:?}",
                case.what, case.expect
            ));
        }
        assert_eq!(books(&ctx), (0, 0), "{}", case.what);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Nothing but `invoices` ran inside the runs, and no more than the limit in one run.
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter()
            .all(|(_, tool)| tool == "run_code" || tool == "invoices")
    );
    assert!(seen.iter().filter(|(id, _)| id.starts_with("h15/")).count() <= 10);
}

const PAYOUT: &str = r#"
paid = []
for customer in ["C-1", "C-2"]:
    open_invoices = await invoices(customer)
    try:
        paid.append(await pay_out(customer, 500))
    except PermissionError as e:
        paid.append("declined: " + customer)
{"paid": paid}
"#;

#[test]
fn a_program_paused_for_approval_goes_on_once_from_where_it_stopped() {
    let (registry, seen) = registry(CodeLimits::default());
    let ctx = context("ada");
    let first = run(&registry, &ctx, "p1", PAYOUT);
    let error = first.error().unwrap();
    assert_eq!(error.kind, ErrorKind::AwaitingApproval, "{error:?}");
    assert!(
        error
            .message
            .contains("pay_out({\"customer\":\"C-1\",\"cents\":500})"),
        "{}",
        error.message
    );
    let ticket = first
        .ticket
        .clone()
        .expect("the pause carries the nested call's ticket");
    assert_eq!(
        (ticket.tool.as_str(), ticket.call_id.as_str()),
        ("pay_out", "p1/1")
    );
    assert_eq!(books(&ctx), (0, 0));

    // Another caller, a forged ticket: refused, nothing runs.
    let other = block_on(registry.resume(&context("mallory"), &ticket, approve(&ticket)));
    assert_eq!(other.error().unwrap().kind, ErrorKind::Denied);
    let mut forged = (*ticket).clone();
    forged.arguments = json!({"customer": "C-1", "cents": 50_000});
    let forged = block_on(registry.resume(&ctx, &forged, approve(&forged)));
    assert_eq!(forged.error().unwrap().kind, ErrorKind::Denied);
    assert_eq!(books(&ctx), (0, 0));

    // Approved: the payout runs, the program goes on to the second customer and pauses
    // again; the first lookup does not run again.
    let second = block_on(registry.resume(&ctx, &ticket, approve(&ticket)));
    assert_eq!(second.call_id, "p1", "{:?}", second.outcome);
    assert_eq!(second.name, "run_code");
    let error = second.error().unwrap();
    assert_eq!(error.kind, ErrorKind::AwaitingApproval, "{error:?}");
    let ticket2 = second.ticket.clone().unwrap();
    assert_eq!(ticket2.call_id, "p1/3");
    assert_eq!(books(&ctx), (1, 0));

    // Declined: the program catches the PermissionError and finishes.
    let done = block_on(registry.resume(
        &ctx,
        &ticket2,
        ApprovalDecision::Decline {
            digest: ticket2.digest.clone(),
            reason: "not this one".to_owned(),
        },
    ));
    assert_eq!(
        value(&done),
        json!({"paid": ["paid 500 to C-1 (payout #1)", "declined: C-2"]})
    );
    assert_eq!(books(&ctx), (1, 0));

    // Replayed: the first result again, nothing runs.
    let again = block_on(registry.resume(&ctx, &ticket, approve(&ticket)));
    assert!(again.duplicate);
    assert_eq!(books(&ctx), (1, 0));

    let seen = seen.lock().unwrap();
    let runs = |id: &str| seen.iter().filter(|(seen, _)| seen == id).count();
    assert_eq!(runs("p1/0"), 1, "the first lookup ran once: {seen:?}");
    assert_eq!(runs("p1/1"), 1, "the payout ran once: {seen:?}");
    assert_eq!(runs("p1/2"), 1, "the second lookup ran once: {seen:?}");
    assert_eq!(runs("p1/3"), 0, "the declined payout never ran: {seen:?}");
}

#[test]
fn a_retried_run_replays_its_keyed_calls_instead_of_running_them_twice() {
    let limits = CodeLimits::default();
    let registry = Registry::builder()
        .with(Invoices)
        .with(PayOut)
        .with_code_mode(CodeMode::new().limits(limits))
        .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll))
        .build()
        .unwrap();
    let ctx = context("ada");
    let program = "await pay_out('C-1', 100)";
    let first = run(&registry, &ctx, "r1", program);
    let second = run(&registry, &ctx, "r1", program);
    assert_eq!(first.for_model(), second.for_model());
    assert_eq!(books(&ctx), (1, 0), "the same run's payout happened once");
    // Another run (another call id) is another payout.
    run(&registry, &ctx, "r2", program);
    assert_eq!(books(&ctx), (2, 0));
}

/// One call a generated program makes, and what must come of it.
#[derive(Debug, Clone)]
enum Made {
    /// Valid arguments: the tool runs, once.
    Valid { tool: &'static str, args: String },
    /// Arguments the schema refuses: dispatched, refused, the tool does not run.
    Refused { args: String },
    /// Arguments that do not fit the signature (an unknown keyword, a value with no JSON
    /// form): refused where the call is made, never dispatched.
    NotACall { args: &'static str },
    /// A valid call never awaited: it takes a number, never runs, and the run ends with
    /// an error naming it.
    Forgotten { n: u32 },
}

fn made() -> impl proptest::strategy::Strategy<Value = Made> {
    use proptest::prelude::*;
    prop_oneof![
        (1u32..40).prop_map(|n| Made::Valid {
            tool: "invoices",
            args: format!("'C-{n}'")
        }),
        (1u32..40, 1u64..900).prop_map(|(n, cents)| Made::Valid {
            tool: "pay_out",
            args: format!("customer='C-{n}', cents={cents}")
        }),
        Just(Made::Valid {
            tool: "exchange_rate",
            args: "'USD'".to_owned()
        }),
        "[a-z]{1,6}".prop_map(|name| Made::Refused {
            args: format!("'{name}'")
        }),
        Just(Made::Refused {
            args: "customer=7".to_owned()
        }),
        // A missing argument: the gate's answer.
        Just(Made::Refused {
            args: String::new()
        }),
        prop_oneof![
            Just("client='C-1'"),
            Just("float('nan')"),
            Just("customer=float('-inf')"),
            Just("'C-1', 2"),
        ]
        .prop_map(|args| Made::NotACall { args }),
        (1u32..40).prop_map(|n| Made::Forgotten { n }),
    ]
}

impl Made {
    /// The call as the program writes it (a refused one goes to `invoices`).
    fn source(&self) -> String {
        match self {
            Made::Valid { tool, args } => format!("{tool}({args})"),
            Made::Refused { args } => format!("invoices({args})"),
            Made::NotACall { args } => format!("invoices({args})"),
            Made::Forgotten { n } => format!("pay_out(customer='C-{n}', cents=1)"),
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Random programs over the stubs (single calls and gathers, valid arguments and
    /// not): every call the program makes is dispatched once, in order, and a tool runs
    /// exactly for the valid ones; nothing else reaches a tool.
    #[test]
    fn every_call_a_program_makes_is_dispatched_once_and_only_valid_ones_run(
        groups in proptest::collection::vec(proptest::collection::vec(made(), 1..4), 1..6)
    ) {
        let (registry, seen) = observed(
            Registry::builder()
                .with(Invoices)
                .with(PayOut)
                .with(ExchangeRate)
                .with_code_mode(CodeMode::new())
                .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll)),
        );
        // Each group is one statement: a call alone, or several gathered; every call is
        // made inside `attempt` so a failure is recorded, not raised. A forgotten call is
        // a statement of its own, made before its group's, and never awaited.
        let mut program = String::from("outcomes = []\nasync def attempt(make):\n    try:\n        await make()\n        outcomes.append('ok')\n    except ToolError as e:\n        outcomes.append('refused')\n");
        // The calls in the order the program makes them.
        let mut all: Vec<&Made> = Vec::new();
        for group in &groups {
            let (forgotten, awaited): (Vec<&Made>, Vec<&Made>) =
                group.iter().partition(|m| matches!(m, Made::Forgotten { .. }));
            for m in forgotten {
                program.push_str(&format!("{}\n", m.source()));
                all.push(m);
            }
            if awaited.len() == 1 {
                program.push_str(&format!("await attempt(lambda: {})\n", awaited[0].source()));
            } else if !awaited.is_empty() {
                // monty 0.0.23 raises a gathered call's failure at the gather, even when
                // the coroutine that awaited it catches it (CPython would not): a gather
                // with a refused call is caught around the gather.
                let calls: Vec<String> = awaited.iter().map(|m| format!("attempt(lambda: {})", m.source())).collect();
                program.push_str(&format!(
                    "try:\n    await asyncio.gather({})\nexcept ToolError:\n    outcomes.append('gather')\n",
                    calls.join(", ")
                ));
            }
            all.extend(awaited);
        }
        program.push_str("outcomes\n");
        let ctx = context("fuzz");
        let result = run(&registry, &ctx, "f", &program);
        let forgotten: Vec<&Made> = all.iter().copied().filter(|m| matches!(m, Made::Forgotten { .. })).collect();
        if !forgotten.is_empty() {
            // A call never awaited ends the run with an error the model can act on: each
            // one named (the first five) as the program wrote it.
            let error = result.error().expect("a forgotten await never ends ok");
            proptest::prop_assert_eq!(error.kind, ErrorKind::InvalidArguments);
            let shown: Vec<String> = forgotten.iter().take(5).map(|m| format!("`{}`", m.source().replace('\'', "\""))).collect();
            let verb = if forgotten.len() == 1 { "was" } else { "were" };
            let more = if forgotten.len() > 5 { format!(" and {} more", forgotten.len() - 5) } else { String::new() };
            let want = format!("{}{more} {verb} never awaited: nothing ran", shown.join(", "));
            proptest::prop_assert!(error.message.starts_with(&want), "{}", error.message);
        } else {
            let outcomes = value(&result);
            let outcome = |m: &Made| match m {
                Made::Valid { .. } => "ok",
                _ => "refused",
            };
            let exact = groups.iter().all(|group| group.len() == 1 || !group.iter().any(|m| matches!(m, Made::Refused { .. } | Made::NotACall { .. })));
            if exact {
                // A gather finishes its calls in any order: compared as multisets.
                let mut got: Vec<String> = serde_json::from_value(outcomes).unwrap();
                let mut want: Vec<String> = all.iter().map(|m| outcome(m).to_owned()).collect();
                got.sort();
                want.sort();
                proptest::prop_assert_eq!(got, want);
            }
        }
        // The calls made are numbered in the order the program made them (one refused
        // where it was made takes no number); a tool ran once for each valid, awaited one
        // and for nothing else.
        let numbered: Vec<&Made> = all.iter().copied().filter(|m| !matches!(m, Made::NotACall { .. })).collect();
        let seen = seen.lock().unwrap().clone();
        let nested: Vec<(String, String)> = seen.into_iter().filter(|(id, _)| id != "f").collect();
        let want_runs: Vec<(String, String)> = numbered
            .iter()
            .enumerate()
            .filter_map(|(n, m)| match m {
                Made::Valid { tool, .. } => Some((format!("f/{n}"), tool.to_string())),
                _ => None,
            })
            .collect();
        let mut got_runs = nested.clone();
        got_runs.sort();
        let mut want_sorted = want_runs.clone();
        want_sorted.sort();
        proptest::prop_assert_eq!(got_runs, want_sorted);
        let payouts = all.iter().filter(|m| matches!(m, Made::Valid { tool: "pay_out", .. })).count() as u32;
        proptest::prop_assert_eq!(books(&ctx).0, payouts);
    }
}

/// The example's task (twenty lookups and an aggregate), answered by a scripted model
/// with direct calls and with one program: the same answer, and the tokens the model
/// sees (o200k, every request in full) at least 80% fewer.
#[test]
fn code_mode_answers_the_same_with_at_least_80_percent_fewer_tokens() {
    let registry = scenario::registry();
    let ctx = Context::new();
    let direct = block_on(scenario::direct(&registry, &ctx));
    let code = block_on(scenario::code(&registry, &ctx));
    assert_eq!(direct.answer, code.answer);
    assert!(!code.answer.0.is_empty() && code.answer.1 > 0);
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |requests: &[String]| -> usize {
        requests
            .iter()
            .map(|r| bpe.encode_with_special_tokens(r).len())
            .sum()
    };
    let (direct, code) = (tokens(&direct.requests), tokens(&code.requests));
    assert!(
        code * 5 <= direct,
        "run_code: {code} tokens, direct calls: {direct}: {:.1}% fewer, not 80%",
        100.0 * (1.0 - code as f64 / direct as f64)
    );
}

/// A program paused for approval on one server process, which is then killed (SIGKILL);
/// a second process, sharing the store file and the approval secret, approves it: the
/// payout happens once, where it lands (the ledger), and the program's value comes back.
#[cfg(all(feature = "mcp", feature = "redb"))]
#[test]
fn a_paused_program_survives_its_process_and_pays_once() {
    use crate::support::{HttpServer, stateless};
    let dir = std::env::temp_dir().join(format!("toolwright-code-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (store, ledger) = (dir.join("store.redb"), dir.join("payouts.log"));
    let secret = [(
        "TOOLWRIGHT_APPROVAL_SECRET",
        "code-kill-test-secret-0123456789abcdef",
    )];
    let args = [
        "--store",
        store.to_str().unwrap(),
        "--ledger",
        ledger.to_str().unwrap(),
        "--client-approval",
        "--code",
    ];
    let text = |reply: &Value| {
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let program = "small = await send_payout(recipient='ada', amount=10)\nbig = await send_payout(recipient='bob', amount=5000)\n{'small': small, 'big': big}";
    let mut first = HttpServer::start_with(&args, &secret);
    let (_, paused) = first.post(&stateless(
        1,
        "tools/call",
        json!({"name": "run_code", "arguments": {"code": program}}),
    ));
    assert_eq!(paused["result"]["isError"], true, "{paused}");
    assert!(text(&paused).contains("awaiting_approval"), "{paused}");
    let ticket = paused["result"]["_meta"]["dev.toolwright/approval-ticket"].clone();
    assert_eq!(ticket["tool"], "send_payout", "{paused}");
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let lines = || {
        std::fs::read_to_string(&ledger)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        lines().len(),
        1,
        "only the small payout ran before the pause: {:?}",
        lines()
    );

    let second = HttpServer::start_with(&args, &secret);
    let resume = |id| {
        stateless(
            id,
            "toolwright/resume",
            json!({"ticket": ticket, "decision": {"decision": "approve", "digest": ticket["digest"]}}),
        )
    };
    let (status, done) = second.post(&resume(2));
    assert_eq!(status, 200, "{done}");
    let value: Value = serde_json::from_str(&text(&done)).unwrap_or(Value::Null);
    assert_eq!(value["small"], "paid 10 to ada", "{done}");
    assert_eq!(value["big"], "paid 5000 to bob", "{done}");
    let (_, again) = second.post(&resume(3));
    assert_eq!(text(&again), text(&done), "{again}");
    let paid = lines();
    assert_eq!(paid.len(), 2, "each payout once: {paid:?}");
    assert!(paid[1].starts_with("bob"), "{paid:?}");
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The measuring entry point of the example (what `scripts/measure/callgrind-code-mode`
/// counts) runs: each of its calls succeeds, directly and from a program.
#[test]
fn the_measured_calls_succeed_both_ways() {
    for tool in ["overdue_count", "invoices"] {
        block_on(scenario::measure("direct", tool, 3));
        block_on(scenario::measure("code", tool, 3));
    }
}
