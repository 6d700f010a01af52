//! The OS sandbox behind `run_command`'s argument checks: on Linux, the child runs under a
//! Landlock ruleset that lets it read the workspace and the toolchain and write only the
//! workspace and a temporary directory of its own. Defence in depth: a path no argument
//! names (a test that opens `/etc/passwd`, a build script) meets the kernel's refusal.
//!
//! Landlock restricts the calling thread and what it starts, so the child is started
//! from a short-lived thread that restricts itself first; the rest of the process keeps
//! its rights.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How far the kernel confined a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Every access right was enforced.
    Enforced,
    /// The kernel enforced an older, smaller set of rights.
    Partial,
    /// No sandbox: why (no Landlock in this kernel, another OS).
    Unavailable(String),
}

impl Confinement {
    /// One line for the command's result.
    pub fn describe(&self) -> String {
        match self {
            Confinement::Enforced => "landlock: reads limited to the workspace and the toolchain, writes to the workspace and a temporary directory".to_owned(),
            Confinement::Partial => "landlock (partly, an older kernel): reads limited to the workspace and the toolchain, writes to the workspace and a temporary directory".to_owned(),
            Confinement::Unavailable(why) => format!("no OS sandbox ({why}): only the argument checks applied"),
        }
    }
}

/// Directories and files a toolchain reads: system libraries and binaries, the Rust
/// toolchain, and the few files under `/etc` that the loader, git and TLS need. `/etc` as
/// a whole, `/home`, `/root` and `/proc` are not among them.
fn toolchain_reads() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/bin",
        "/sbin",
        "/opt",
        "/etc/ld.so.cache",
        "/etc/ld.so.conf",
        "/etc/ld.so.conf.d",
        "/etc/alternatives",
        "/etc/gitconfig",
        "/etc/localtime",
        "/etc/ssl",
        "/etc/ca-certificates",
        "/etc/resolv.conf",
        "/etc/hosts",
        "/etc/nsswitch.conf",
        "/dev/null",
        "/dev/urandom",
        "/dev/zero",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for (variable, default) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
        match std::env::var_os(variable) {
            Some(dir) => paths.push(dir.into()),
            None => paths.extend(home.as_ref().map(|home| home.join(default))),
        }
    }
    paths.retain(|path| path.exists());
    paths
}

/// Runs `command` confined to `workspace` (read and write), `temp` (read and write) and
/// the toolchain (read), where the kernel allows; says how it was confined.
#[cfg(target_os = "linux")]
pub fn run_confined(
    mut command: Command,
    workspace: &Path,
    temp: &Path,
) -> std::io::Result<(Output, Confinement)> {
    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, path_beneath_rules,
    };

    let abi = ABI::V5;
    let reads = toolchain_reads();
    let writes = [
        workspace.to_path_buf(),
        temp.to_path_buf(),
        PathBuf::from("/dev/null"),
    ];
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let restricted = landlock::Ruleset::default()
                    .set_compatibility(CompatLevel::BestEffort)
                    .handle_access(AccessFs::from_all(abi))
                    .and_then(|ruleset| ruleset.create())
                    .and_then(|ruleset| {
                        ruleset.add_rules(path_beneath_rules(&reads, AccessFs::from_read(abi)))
                    })
                    .and_then(|ruleset| {
                        ruleset.add_rules(path_beneath_rules(&writes, AccessFs::from_all(abi)))
                    })
                    .and_then(|ruleset| ruleset.restrict_self());
                let confinement = match restricted {
                    Ok(status) => match status.ruleset {
                        RulesetStatus::FullyEnforced => Confinement::Enforced,
                        RulesetStatus::PartiallyEnforced => Confinement::Partial,
                        RulesetStatus::NotEnforced => Confinement::Unavailable(
                            "this kernel has no Landlock, or it is turned off".to_owned(),
                        ),
                    },
                    Err(error) => Confinement::Unavailable(format!("Landlock refused: {error}")),
                };
                command.output().map(|output| (output, confinement))
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the sandbox thread panicked")))
    })
}

/// Runs `command` without an OS sandbox (only Linux has one here).
#[cfg(not(target_os = "linux"))]
pub fn run_confined(
    mut command: Command,
    _workspace: &Path,
    _temp: &Path,
) -> std::io::Result<(Output, Confinement)> {
    let _ = toolchain_reads;
    command.output().map(|output| {
        (
            output,
            Confinement::Unavailable("Landlock is Linux's; this is another OS".to_owned()),
        )
    })
}
