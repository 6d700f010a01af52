//! What a model does by accident in a program, answered so it can act on it: a tool call
//! it forgot to `await` (never a silent success), arguments that do not fit the
//! signature (every problem at once, as the gate says it), a value with no JSON form
//! (refused, never `null`), and a print flood (cut in the middle, the program goes on).

use crate::support::block_on;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};
use toolwright::code::{CodeLimits, CodeMode};
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolResult, tool};

/// How often each tool ran.
#[derive(Default)]
struct Ran {
    payouts: AtomicU32,
    reads: AtomicU32,
}

/// Send money to an account.
#[tool(effect = "external", callers = "code")]
fn send_payout(
    /// Account to pay, like `acct-7`.
    recipient: String,
    /// Amount, in cents.
    #[arg(minimum = 1)]
    amount: u64,
    #[ctx] ran: &Ran,
) -> String {
    ran.payouts.fetch_add(1, Ordering::SeqCst);
    format!("paid {amount} to {recipient}")
}

/// Read part of a file.
#[tool(effect = "read_only")]
fn read_file(
    /// The file's path.
    path: String,
    /// Where to start, in bytes.
    offset: Option<f64>,
    #[ctx] ran: &Ran,
) -> String {
    ran.reads.fetch_add(1, Ordering::SeqCst);
    format!("{path} from {}", offset.unwrap_or(0.0))
}

fn registry(limits: CodeLimits) -> Registry {
    Registry::builder()
        .with(SendPayout)
        .with(ReadFile)
        .with_code_mode(CodeMode::new().limits(limits))
        .defaults(toolwright::ToolSettings::new().policy(toolwright::policy::AllowAll))
        .build()
        .unwrap()
}

fn run(registry: &Registry, ctx: &Context, program: &str) -> ToolResult {
    let call = ToolCall::new("r", "run_code", json!({ "code": program }));
    block_on(registry.dispatch(ctx, call))
}

fn ran(ctx: &Context) -> (u32, u32) {
    let ran = ctx.get::<Ran>().unwrap();
    (
        ran.payouts.load(Ordering::SeqCst),
        ran.reads.load(Ordering::SeqCst),
    )
}

fn failed(result: &ToolResult) -> &toolwright::ToolError {
    match &result.outcome {
        Err(error) => error,
        Ok(output) => panic!("the run succeeded: {}", output.to_text()),
    }
}

fn value(result: &ToolResult) -> Value {
    match &result.outcome {
        Ok(output) => {
            serde_json::from_str(&output.to_text()).unwrap_or(Value::String(output.to_text()))
        }
        Err(error) => panic!("the run failed: {error:?}"),
    }
}

#[test]
fn a_tool_call_never_awaited_ends_the_run_with_an_error_and_never_runs() {
    let registry = registry(CodeLimits::default());
    let cases = [
        (
            "a statement",
            "send_payout(recipient='acct-7', amount=500)\n'ok'",
        ),
        (
            "the program's value",
            "send_payout(recipient='acct-7', amount=500)",
        ),
        (
            "stored and dropped",
            "c = send_payout(recipient='acct-7', amount=500)\nc = None\n'done'",
        ),
        (
            "inside a function",
            "def pay():\n    send_payout(recipient='acct-7', amount=500)\npay()\n'ok'",
        ),
        (
            "a gather not awaited",
            "asyncio.gather(send_payout(recipient='acct-7', amount=500))\n'ok'",
        ),
    ];
    for (what, program) in cases {
        let ctx = Context::new().with(Ran::default());
        let result = run(&registry, &ctx, program);
        let Err(error) = &result.outcome else {
            panic!("{what}: the run succeeded: {:?}", result.outcome)
        };
        assert_eq!(error.kind, ErrorKind::InvalidArguments, "{what}");
        assert!(
            error.message.contains(
                "`send_payout(recipient=\"acct-7\", amount=500)` was never awaited: nothing ran for it"
            ) && error.message.contains("write `await send_payout(...)`"),
            "{what}: {}",
            error.message
        );
        assert_eq!(ran(&ctx), (0, 0), "{what}: nothing ran");
    }

    // Awaited calls run; the one left behind is named, and the count of those that ran.
    let ctx = Context::new().with(Ran::default());
    let program = "await read_file(path='a')\nsend_payout(recipient='acct-7', amount=1)\nawait read_file(path='b')\n'ok'";
    let error = failed(&run(&registry, &ctx, program)).clone();
    assert!(
        error.message.contains("amount=1)` was never awaited")
            && error.message.contains("The program's other 2 calls ran."),
        "{}",
        error.message
    );
    assert_eq!(ran(&ctx), (0, 2));
}

#[test]
fn arguments_that_do_not_fit_the_signature_get_every_problem_and_the_tool_never_runs() {
    let registry = registry(CodeLimits::default());
    let ctx = Context::new().with(Ran::default());
    // Uncaught: the run ends with the gate's answer in the traceback.
    let result = run(
        &registry,
        &ctx,
        "await send_payout(recipient='acct-7', amount=500, approved=True)",
    );
    let error = failed(&result);
    assert!(
        error.message.contains("ValueError: invalid_arguments: send_payout() was called with arguments that do not fit it")
            && error.message.contains("$.approved: send_payout() has no argument 'approved'; it takes recipient, amount"),
        "{}",
        error.message
    );

    // Caught as a ToolError, with every problem: the unknown keyword, the missing
    // argument and the wrong type at once.
    let program = r#"
try:
    await send_payout(amount="lots", approved=True)
except ToolError as e:
    answer = str(e)
answer
"#;
    let answer = value(&run(&registry, &ctx, program));
    let answer = answer.as_str().unwrap();
    for want in [
        "invalid_arguments",
        "$.approved: send_payout() has no argument 'approved'",
        "missing required field 'recipient'",
        "$.amount",
        "hint: call it as its stub",
    ] {
        assert!(answer.contains(want), "{want:?} not in {answer}");
    }

    // A missing argument alone goes to the gate when awaited: the same category.
    let program = "try:\n    await send_payout(recipient='acct-7')\nexcept ToolError as e:\n    answer = str(e)\nanswer";
    let answer = value(&run(&registry, &ctx, program));
    assert!(
        answer.as_str().unwrap().starts_with("invalid_arguments")
            && answer
                .as_str()
                .unwrap()
                .contains("missing required field 'amount'"),
        "{answer}"
    );

    // Too many positional arguments.
    let program = "try:\n    await read_file('a', 3.0, 4)\nexcept ToolError as e:\n    answer = str(e)\nanswer";
    let answer = value(&run(&registry, &ctx, program));
    assert!(
        answer
            .as_str()
            .unwrap()
            .contains("read_file() takes 1 positional argument but 3 were given"),
        "{answer}"
    );
    assert_eq!(ran(&ctx), (0, 0));
}

#[test]
fn nan_and_infinity_are_refused_never_read_as_null() {
    let registry = registry(CodeLimits::default());
    let ctx = Context::new().with(Ran::default());
    for (literal, shown) in [
        ("float('nan')", "float('nan')"),
        ("float('inf')", "float('inf')"),
        ("-float('inf')", "float('-inf')"),
    ] {
        let program = format!(
            "try:\n    await read_file(path='a', offset={literal})\nexcept ToolError as e:\n    answer = str(e)\nanswer"
        );
        let answer = value(&run(&registry, &ctx, &program));
        let answer = answer.as_str().unwrap();
        assert!(
            answer.starts_with("invalid_arguments")
                && answer.contains(&format!("$.offset: {shown} has no JSON form")),
            "{answer}"
        );
        // Inside a list too, where a positional argument carries it.
        let program = format!("[{literal}]");
        let error = failed(&run(&registry, &ctx, &program)).clone();
        assert!(
            error.message.contains("cannot be sent back")
                && error.message.contains(&format!("{shown} has no JSON form")),
            "{}",
            error.message
        );
    }
    assert_eq!(ran(&ctx), (0, 0));
}

#[test]
fn a_print_flood_is_cut_in_the_middle_and_the_program_finishes() {
    let registry = registry(CodeLimits::default().printed_bytes(4_000));
    let ctx = Context::new().with(Ran::default());
    // About 10 MB printed, then the program goes on and returns.
    let program =
        "for i in range(100000):\n    print(i, 'y' * 94)\nawait read_file(path='after')\n'done'";
    let result = run(&registry, &ctx, program);
    let answer = value(&result);
    assert_eq!(answer["result"], "done");
    let printed = answer["printed"].as_str().unwrap();
    assert!(printed.starts_with("0 yyyy"), "{printed}");
    assert!(
        printed.ends_with(&format!("99999 {}\n", "y".repeat(94))),
        "{printed}"
    );
    assert!(
        printed.contains("lines of printed output cut: the program printed more than 4,000 bytes"),
        "{printed}"
    );
    assert!(printed.len() < 5_000, "{} bytes kept", printed.len());
    assert_eq!(ran(&ctx), (0, 1), "the call after the flood ran");
}
