//! `run_command`: a short allow-list of commands, each with the options it may take,
//! every path among its arguments confined to the workspace, its environment scrubbed of
//! secrets, run without a shell and (on Linux) inside a Landlock sandbox.

use std::fmt::Write as _;
use std::process::Command;

use serde::Serialize;
use toolwright::{Effect, ErrorKind, ToolError, ToolSchema, tool};

use super::Workspace;
use super::sandbox::run_confined;
use super::secrets::{redact, redact_output};

/// What an argument that is not an option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    /// A path: it must resolve inside the workspace.
    Path,
    /// A name (a test filter): never opened as a file.
    Name,
    /// None may be given.
    None,
}

/// One allowed command and exactly what it may take.
struct Spec {
    /// The words it starts with (`git diff`).
    words: &'static [&'static str],
    effect: Effect,
    /// Options taken alone (the lists, together).
    flags: &'static [&'static [&'static str]],
    /// Options that take a value (`-p NAME`, `--features=a,b`); the value is never a path.
    valued: &'static [&'static str],
    /// A number as an option (`git log -5`).
    numeric_flag: bool,
    operands: Operand,
    /// After `--`: what the command passes on (the test binary's options for
    /// `cargo test`), or `None` when `--` only ends the options.
    after_dashes: Option<&'static Spec>,
}

const CARGO_FLAGS: &[&str] = &[
    "--workspace",
    "--all",
    "--all-targets",
    "--lib",
    "--bins",
    "--tests",
    "--benches",
    "--examples",
    "--all-features",
    "--no-default-features",
    "--release",
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "--offline",
    "--locked",
    "--frozen",
    "--keep-going",
];
/// What `cargo test` takes besides `cargo check`'s flags.
const CARGO_TEST_ONLY_FLAGS: &[&str] = &["--doc", "--no-run", "--no-fail-fast"];
const CARGO_VALUED: &[&str] = &[
    "-p",
    "--package",
    "--features",
    "-F",
    "--bin",
    "--test",
    "--example",
    "--bench",
    "--exclude",
    "--message-format",
    "-j",
    "--jobs",
    "--profile",
];

/// What a test binary takes after `cargo test --`.
const TEST_BINARY: Spec = Spec {
    words: &[],
    effect: Effect::External,
    flags: &[&[
        "--nocapture",
        "--show-output",
        "--exact",
        "--ignored",
        "--include-ignored",
        "--quiet",
        "-q",
        "--list",
    ]],
    valued: &["--test-threads", "--skip"],
    numeric_flag: false,
    operands: Operand::Name,
    after_dashes: None,
};

/// The commands `run_command` runs. Options not listed are refused, so a new option that
/// writes elsewhere (`--output`, `--target-dir`, `--manifest-path`, `-C`, `--git-dir`,
/// `--no-index`) cannot slip through.
const COMMANDS: &[Spec] = &[
    Spec {
        words: &["ls"],
        effect: Effect::ReadOnly,
        flags: &[&[
            "-a", "-A", "-l", "-h", "-1", "-R", "-d", "-F", "-t", "-r", "-S", "-la", "-al", "-lh",
            "-lah", "-alh",
        ]],
        valued: &[],
        numeric_flag: false,
        operands: Operand::Path,
        after_dashes: None,
    },
    Spec {
        words: &["cat"],
        effect: Effect::ReadOnly,
        flags: &[&["-n", "-b", "-s", "-A", "-E", "-T"]],
        valued: &[],
        numeric_flag: false,
        operands: Operand::Path,
        after_dashes: None,
    },
    Spec {
        words: &["git", "status"],
        effect: Effect::ReadOnly,
        flags: &[&[
            "-s",
            "--short",
            "-b",
            "--branch",
            "--porcelain",
            "--long",
            "--ignored",
        ]],
        valued: &["--untracked-files"],
        numeric_flag: false,
        operands: Operand::Path,
        after_dashes: None,
    },
    Spec {
        words: &["git", "diff"],
        effect: Effect::ReadOnly,
        flags: &[&[
            "--stat",
            "--shortstat",
            "--numstat",
            "--name-only",
            "--name-status",
            "--cached",
            "--staged",
            "--no-color",
            "-w",
            "--ignore-all-space",
            "--word-diff",
            "-p",
            "--patch",
            "-R",
        ]],
        valued: &["-U", "--unified"],
        numeric_flag: false,
        operands: Operand::Path,
        after_dashes: None,
    },
    Spec {
        words: &["git", "log"],
        effect: Effect::ReadOnly,
        flags: &[&[
            "--oneline",
            "--stat",
            "--shortstat",
            "--name-only",
            "--name-status",
            "-p",
            "--patch",
            "--graph",
            "--decorate",
            "--no-decorate",
            "--reverse",
            "--no-color",
            "--no-merges",
            "--first-parent",
        ]],
        valued: &[
            "-n",
            "--max-count",
            "--since",
            "--until",
            "--author",
            "--grep",
            "--format",
            "--pretty",
            "--skip",
        ],
        numeric_flag: true,
        operands: Operand::Path,
        after_dashes: None,
    },
    // cargo runs build scripts, procedural macros and tests: arbitrary code that can
    // reach the network. It is `external`, so the default policy asks.
    Spec {
        words: &["cargo", "check"],
        effect: Effect::External,
        flags: &[CARGO_FLAGS],
        valued: CARGO_VALUED,
        numeric_flag: false,
        operands: Operand::None,
        after_dashes: None,
    },
    Spec {
        words: &["cargo", "test"],
        effect: Effect::External,
        flags: &[CARGO_FLAGS, CARGO_TEST_ONLY_FLAGS],
        valued: CARGO_VALUED,
        numeric_flag: false,
        operands: Operand::Name,
        after_dashes: Some(&TEST_BINARY),
    },
    Spec {
        words: &["rm"],
        effect: Effect::Destructive,
        flags: &[&["-r", "-R", "-f", "-rf", "-fr", "-v"]],
        valued: &[],
        numeric_flag: false,
        operands: Operand::Path,
        after_dashes: None,
    },
];

/// The environment variables a command receives (when set, and not credential-shaped):
/// where programs are, the locale, and the Rust toolchain's own settings.
const PASSED_ENVIRONMENT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TZ",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUST_BACKTRACE",
];

/// Why a command line is refused: the message and what to do instead.
struct Refusal {
    message: String,
    hint: String,
}

fn refuse(message: impl Into<String>, hint: impl Into<String>) -> Refusal {
    Refusal {
        message: message.into(),
        hint: hint.into(),
    }
}

/// The command line's words, as a shell would split them (quotes and backslashes), but
/// nothing else a shell does: no variables, globs, pipes or redirections.
fn split(command: &str) -> Result<Vec<String>, Refusal> {
    if command.contains('\0') {
        return Err(refuse("the command contains a NUL byte", "send plain text"));
    }
    let words = shlex::split(command).ok_or_else(|| {
        refuse(
            "the command has an unclosed quote or a trailing backslash",
            "close every quote",
        )
    })?;
    if words.is_empty() {
        return Err(refuse("the command is empty", allowed_commands()));
    }
    Ok(words)
}

fn allowed_commands() -> String {
    let list: Vec<String> = COMMANDS.iter().map(|spec| spec.words.join(" ")).collect();
    format!("allowed commands: {}", list.join(", "))
}

fn spec_of(words: &[String]) -> Option<&'static Spec> {
    COMMANDS.iter().find(|spec| {
        words.len() >= spec.words.len()
            && spec.words.iter().zip(words).all(|(want, got)| want == got)
    })
}

/// Checks the arguments after the command's own words against `spec`: every option
/// allowed, every path inside the workspace (`workspace` is `None` when only the
/// shape is checked, for classification).
fn check_arguments(
    spec: &Spec,
    arguments: &[String],
    workspace: Option<&Workspace>,
) -> Result<(), Refusal> {
    let name = spec.words.join(" ");
    let options_list = || {
        let mut all: Vec<String> = spec
            .flags
            .iter()
            .flat_map(|list| list.iter())
            .map(|f| (*f).to_owned())
            .collect();
        all.extend(spec.valued.iter().map(|v| format!("{v} VALUE")));
        if spec.numeric_flag {
            all.push("-N".to_owned());
        }
        if all.is_empty() {
            format!("'{name}' takes no options")
        } else {
            format!("'{name}' takes: {}", all.join(", "))
        }
    };
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        if argument == "--" {
            return match spec.after_dashes {
                Some(passed_on) => check_arguments(passed_on, rest.as_slice(), workspace),
                None => rest.try_for_each(|operand| check_operand(spec, operand, workspace)),
            };
        }
        if argument.starts_with('-') && argument.len() > 1 {
            let (option, inline) = match argument.split_once('=') {
                Some((option, value)) => (option, Some(value)),
                None => (argument.as_str(), None),
            };
            if inline.is_none() && spec.flags.iter().any(|list| list.contains(&option)) {
                continue;
            }
            if spec.numeric_flag && option[1..].bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            if spec.valued.contains(&option) {
                if inline.is_none() && rest.next().is_none() {
                    return Err(refuse(
                        format!("'{option}' of '{name}' needs a value"),
                        options_list(),
                    ));
                }
                continue;
            }
            // A short valued option with its value attached (`-U3`, `-pcore`).
            if spec
                .valued
                .iter()
                .any(|v| v.len() == 2 && !v.starts_with("--") && argument.starts_with(*v))
            {
                continue;
            }
            return Err(refuse(
                format!("'{option}' is not an option '{name}' may take here"),
                options_list(),
            ));
        }
        check_operand(spec, argument, workspace)?;
    }
    Ok(())
}

fn check_operand(spec: &Spec, operand: &str, workspace: Option<&Workspace>) -> Result<(), Refusal> {
    let name = spec.words.join(" ");
    match spec.operands {
        Operand::None => Err(refuse(
            format!("'{name}' takes no arguments besides its options, got '{operand}'"),
            "name packages with -p NAME",
        )),
        Operand::Name => Ok(()),
        Operand::Path => {
            let Some(workspace) = workspace else {
                return Ok(());
            };
            let resolved = workspace.resolve(operand).map_err(|error| Refusal {
                message: error.message,
                hint: error.hint.unwrap_or_default(),
            })?;
            if spec.words == ["rm"] && resolved == workspace.root() {
                return Err(refuse(
                    "'rm' may not remove the workspace itself",
                    "remove files or folders inside it",
                ));
            }
            Ok(())
        }
    }
}

/// The effect of one command line: the allow-list's class for a command whose options
/// are all allowed, the riskiest class for anything else (it is refused when run).
pub fn classify_command(command: &str) -> Effect {
    let Ok(words) = split(command) else {
        return Effect::RISKIEST;
    };
    match spec_of(&words) {
        Some(spec) if check_arguments(spec, &words[spec.words.len()..], None).is_ok() => {
            spec.effect
        }
        _ => Effect::RISKIEST,
    }
}

/// What a command did, bounded for the model.
#[derive(Debug, Serialize, ToolSchema)]
pub struct CommandOutput {
    /// The exit code (-1 when killed by a signal).
    pub exit_code: i32,
    /// The end of standard output, at most 4,000 characters, credentials redacted.
    pub stdout: String,
    /// The end of standard error, at most 4,000 characters, credentials redacted.
    pub stderr: String,
    /// Where the full output was saved (outside the workspace, readable by the harness).
    pub log: String,
    /// How the operating system confined the command.
    pub sandbox: String,
}

/// Run a command from the allow-list in the workspace: `ls`, `cat`, `git status`,
/// `git diff`, `git log` (read only), `cargo check`, `cargo test` (these run build
/// scripts and tests, which is arbitrary code: they wait for approval unless the policy
/// allows them), `rm` (destructive: waits for approval).
///
/// No shell: quotes group words, but pipes, redirections, variables and `&&` are not
/// interpreted. Each command takes only its listed options, and every path must be
/// inside the workspace.
///
/// # Arguments
/// * `command` - The command line, like `cargo test -p core`.
#[tool(effect = "dynamic", classify = classify_command)]
pub fn run_command(
    #[arg(min_length = 1, max_length = 4096)] command: String,
    #[ctx] workspace: &Workspace,
) -> Result<CommandOutput, ToolError> {
    let denied = |refusal: Refusal, retryable: bool| {
        ToolError::new(ErrorKind::Denied, refusal.message)
            .with_retryable(retryable)
            .with_hint(refusal.hint)
    };
    let words = split(&command).map_err(|refusal| denied(refusal, true))?;
    let Some(spec) = spec_of(&words) else {
        return Err(denied(
            refuse(
                format!("'{command}' is not on the allow-list"),
                allowed_commands(),
            ),
            false,
        ));
    };
    check_arguments(spec, &words[spec.words.len()..], Some(workspace))
        .map_err(|refusal| denied(refusal, true))?;
    let temp = std::env::temp_dir().join(format!(
        "toolwright-command-{}-{}",
        std::process::id(),
        nanos()
    ));
    std::fs::create_dir_all(&temp)
        .map_err(|e| ToolError::failed(format!("cannot create a temporary directory: {e}")))?;
    let mut child = Command::new(&words[0]);
    child
        .args(&words[1..])
        .current_dir(workspace.root())
        .stdin(std::process::Stdio::null());
    // The command sees only an allow-list of the environment: no credentials, and
    // nothing that sends its output elsewhere (a harness's CARGO_TARGET_DIR, say).
    child.env_clear().env("TMPDIR", &temp);
    for name in PASSED_ENVIRONMENT {
        if let Some(value) = std::env::var_os(name) {
            let text = value.to_string_lossy();
            if redact(&text) == text {
                child.env(name, &value);
            }
        }
    }
    let ran = run_confined(child, workspace.root(), &temp);
    let _ = std::fs::remove_dir_all(&temp);
    let (output, confinement) =
        ran.map_err(|e| ToolError::failed(format!("cannot run '{command}': {e}")))?;
    let stdout = redact_output(&String::from_utf8_lossy(&output.stdout));
    let stderr = redact_output(&String::from_utf8_lossy(&output.stderr));
    let logs = std::env::temp_dir().join("toolwright-command-logs");
    std::fs::create_dir_all(&logs)
        .map_err(|e| ToolError::failed(format!("cannot save the log: {e}")))?;
    let log = logs.join(format!("{}-{}.log", std::process::id(), nanos()));
    let mut full = String::new();
    let _ = write!(
        full,
        "$ {command}\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n"
    );
    std::fs::write(&log, full)
        .map_err(|e| ToolError::failed(format!("cannot save the log: {e}")))?;
    Ok(CommandOutput {
        exit_code: output.status.code().unwrap_or(-1),
        stdout: tail(&stdout, 4000),
        stderr: tail(&stderr, 4000),
        log: log.display().to_string(),
        sandbox: confinement.describe(),
    })
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// The last `max` characters of `text`, saying how much came before.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(count - max).collect();
    format!("[... {} characters before this ...]\n{kept}", count - max)
}
