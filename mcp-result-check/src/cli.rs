//! The command line, parsed by hand: a dozen flags need no framework.

use std::{ffi::OsString, path::PathBuf, time::Duration};

use mcp_result::{
    lint::Host,
    serde_json::{Map, Value},
};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ProtocolVersion;

pub const USAGE: &str = "\
mcp-result-check: check an MCP server's tools against the hosts' rules, the MCP spec's tool
rules and the tool-result review (mcp-result's contract), by connecting to it as a client.

USAGE:
    mcp-result-check [OPTIONS] -- <server command> [args...]     (stdio)
    mcp-result-check [OPTIONS] --url http://HOST:PORT/mcp         (streamable HTTP)

OPTIONS:
    --url URL             a streamable HTTP endpoint (plain http://; no TLS in this build)
    --header 'NAME: VALUE'
                          an HTTP header on every request, e.g. 'Authorization: Bearer TOKEN'
                          (repeatable; with --url)
    --host NAME           a host whose rules the tool list is linted against (repeatable):
                          mcp, claude, claude-api, claude-desktop, claude-code, openai,
                          openai-strict, gemini, codex, vscode-copilot, `portable` (every host
                          but openai-strict: the default) or `all`
    --samples FILE        the arguments to call tools with: a JSON object, tool name -> arguments
                          object; tools it does not name get arguments generated from their
                          inputSchema
    --call-writes         also call write tools (readOnlyHint not true): they may change things.
                          Without it they are listed as not called, and only their schemas are
                          checked
    --format table|json   a table for people (default) or JSON for CI
    --protocol VERSION    the protocol version to offer: 2024-11-05, 2025-03-26, 2025-06-18,
                          2025-11-25 (default; `initialize`) or 2026-07-28 (`server/discover`)
    --timeout SECONDS     the limit for the connection and for each request (default 30)
    --max-output BYTES    a result carrying more text or structuredContent than this without a
                          resource_link is a large-output finding (default 65536)
    --allow CHECK         accept the findings of check CHECK (a check id of --list-checks, or
                          `lint/<rule>`; repeatable): listed apart as allowed, they do not fail
                          the run
    --verbose             pass the server's stderr through (it is kept and shown only when the
                          server cannot be started or connected otherwise)
    --list-checks         list the checks (and the lint rules of the chosen hosts) and exit
    -h, --help            this text
    -V, --version         the version

RESULTS (the table's result column; each tool's `status` in the JSON):
    ok                    called, no finding (status `called`)
    blocked               called, and answered `blocked`: an isError result whose
                          structuredContent status is `blocked`, e.g. a write waiting for a
                          human approval. Not run, so never ok, and no finding; its
                          approvalRequestId is shown (status `blocked`)
    skipped               not called, and why (status `not-called`)
    FAIL, WARN            a finding (severity error, warning), with its fix

EXIT STATUS:
    0 clean, 1 findings, 2 usage error (bad flags, unreadable samples, a server that cannot be
    started or connected)
";

/// What to connect to.
#[derive(Debug)]
pub enum Target {
    /// A server command, started with its stdin and stdout as the MCP channel.
    Stdio(Vec<OsString>),
    /// A streamable HTTP endpoint and the headers to send.
    Http {
        url: String,
        headers: Vec<(HeaderName, HeaderValue)>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
}

#[derive(Debug)]
pub struct Options {
    pub target: Target,
    pub hosts: Vec<Host>,
    pub samples: Map<String, Value>,
    pub call_writes: bool,
    pub format: Format,
    pub protocol: ProtocolVersion,
    pub timeout: Duration,
    pub max_output: usize,
    pub verbose: bool,
    /// `--allow CHECK`: findings of these checks (check ids, or `lint/<rule>`) are counted
    /// apart and do not fail the run.
    pub allow: Vec<String>,
}

pub enum Parsed {
    Run(Box<Options>),
    /// `--list-checks`: the checks and the lint rules of these hosts.
    ListChecks(Vec<Host>),
    Help,
    Version,
}

/// The hosts linted when no `--host` is given: [`Host::PORTABLE`], every one but OpenAI's
/// strict mode, which a host opts into per request and whose "every property required" no
/// single-type schema of an optional argument can meet.
pub fn default_hosts() -> Vec<Host> {
    Host::PORTABLE.to_vec()
}

pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
    let mut args = args.into_iter();
    let mut command: Option<Vec<OsString>> = None;
    let mut url: Option<String> = None;
    let mut headers = Vec::new();
    let mut hosts: Vec<Host> = Vec::new();
    let mut samples: Option<PathBuf> = None;
    let mut call_writes = false;
    let mut format = Format::Table;
    let mut protocol = ProtocolVersion::LATEST_WITH_INITIALIZE;
    let mut timeout = Duration::from_secs(30);
    let mut max_output = 64 * 1024;
    let mut verbose = false;
    let mut list_checks = false;
    let mut allow = Vec::new();

    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|a| format!("an option that is not UTF-8: {a:?}"))?;
        if arg == "--" {
            command = Some(args.by_ref().collect());
            break;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.into())),
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .ok_or_else(|| format!("{flag} needs {what}"))?
                    .into_string()
                    .map_err(|a| format!("{flag}: not UTF-8: {a:?}")),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            "--url" => url = Some(value("a URL")?),
            "--header" => headers.push(header(&value("'NAME: VALUE'")?)?),
            "--host" => {
                let name = value("a host name")?;
                if name.eq_ignore_ascii_case("all") {
                    hosts.extend(Host::ALL);
                } else if name.eq_ignore_ascii_case("portable") {
                    hosts.extend(Host::PORTABLE);
                } else {
                    let host = name.parse();
                    hosts.push(host.map_err(|e| format!("--host: {e}, portable or all"))?);
                }
            }
            "--samples" => samples = Some(PathBuf::from(value("a file")?)),
            "--call-writes" => call_writes = true,
            "--format" => {
                format = match value("table or json")?.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    other => return Err(format!("--format: `{other}`: expected table or json")),
                }
            }
            "--protocol" => {
                let version = value("a protocol version")?;
                protocol = ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .find(|v| v.as_str() == version)
                    .cloned()
                    .ok_or_else(|| {
                        let known: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
                            .iter()
                            .map(ProtocolVersion::as_str)
                            .collect();
                        format!(
                            "--protocol: `{version}`: expected one of {}",
                            known.join(", ")
                        )
                    })?;
            }
            "--timeout" => {
                let seconds: f64 = value("a number of seconds")?
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or("--timeout: expected a positive number of seconds")?;
                timeout = Duration::from_secs_f64(seconds);
            }
            "--max-output" => {
                max_output = value("a number of bytes")?
                    .parse()
                    .map_err(|_| "--max-output: expected a number of bytes")?;
            }
            "--allow" => {
                let id = value("a check id")?;
                let known = id.starts_with("lint/")
                    || crate::checks::CHECKS.iter().any(|check| check.id == id);
                if !known {
                    return Err(format!(
                        "--allow: `{id}` is no check id (see --list-checks; lint rules are \
                         `lint/<rule>`)"
                    ));
                }
                allow.push(id);
            }
            "--verbose" => verbose = true,
            "--list-checks" => list_checks = true,
            other if other.starts_with('-') => {
                return Err(format!("unknown option `{other}` (see --help)"))
            }
            other => {
                return Err(format!(
                    "unexpected `{other}`: put the server command after `--`, e.g. \
                     mcp-result-check -- python server.py"
                ))
            }
        }
    }

    if list_checks {
        return Ok(Parsed::ListChecks(if hosts.is_empty() {
            default_hosts()
        } else {
            hosts
        }));
    }
    let target = match (command, url) {
        (Some(command), None) if !command.is_empty() => {
            if !headers.is_empty() {
                return Err("--header goes with --url, not with a server command".into());
            }
            Target::Stdio(command)
        }
        (Some(_), None) => return Err("no server command after `--`".into()),
        (None, Some(url)) => {
            if url.starts_with("https://") {
                return Err(format!(
                    "--url {url}: this build speaks plain http:// only (no TLS); reach an \
                     https server through a local proxy"
                ));
            }
            if !url.starts_with("http://") {
                return Err(format!("--url {url}: expected an http:// URL"));
            }
            Target::Http { url, headers }
        }
        (Some(_), Some(_)) => {
            return Err("give either --url or a server command after `--`, not both".into())
        }
        (None, None) => {
            return Err(
                "nothing to check: give a server command after `--`, or --url (see --help)".into(),
            )
        }
    };
    let samples = match samples {
        None => Map::new(),
        Some(path) => read_samples(&path)?,
    };
    if hosts.is_empty() {
        hosts = default_hosts();
    }
    Ok(Parsed::Run(Box::new(Options {
        target,
        hosts,
        samples,
        call_writes,
        format,
        protocol,
        timeout,
        max_output,
        allow,
        verbose,
    })))
}

fn header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("--header `{text}`: expected 'NAME: VALUE'"))?;
    let name = HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| format!("--header: `{}` is not a header name", name.trim()))?;
    let value = HeaderValue::from_str(value.trim())
        .map_err(|_| format!("--header {name}: the value is not a valid header value"))?;
    Ok((name, value))
}

fn read_samples(path: &PathBuf) -> Result<Map<String, Value>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("--samples {}: {e}", path.display()))?;
    let value: Value = mcp_result::serde_json::from_str(&text)
        .map_err(|e| format!("--samples {}: not JSON: {e}", path.display()))?;
    let Value::Object(samples) = value else {
        return Err(format!(
            "--samples {}: expected an object of tool name -> arguments object",
            path.display()
        ));
    };
    for (tool, arguments) in &samples {
        if !arguments.is_object() {
            return Err(format!(
                "--samples {}: the arguments of `{tool}` are not an object",
                path.display()
            ));
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Parsed, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn a_command_after_the_separator_is_stdio() {
        let Ok(Parsed::Run(options)) = parse_strs(&[
            "--host",
            "claude",
            "--call-writes",
            "--",
            "python",
            "-m",
            "srv",
        ]) else {
            panic!("parsed")
        };
        assert!(matches!(&options.target, Target::Stdio(c) if c.len() == 3));
        assert_eq!(options.hosts, [Host::Claude]);
        assert!(options.call_writes);
    }

    #[test]
    fn headers_go_with_a_url() {
        let Ok(Parsed::Run(options)) = parse_strs(&[
            "--url=http://127.0.0.1:1/mcp",
            "--header",
            "Authorization: Bearer t",
        ]) else {
            panic!("parsed")
        };
        let Target::Http { headers, .. } = &options.target else {
            panic!("http")
        };
        assert_eq!(headers[0].0, "authorization");
        assert_eq!(headers[0].1, "Bearer t");
        assert_eq!(options.hosts, default_hosts());
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        let error = |args: &[&str]| match parse_strs(args) {
            Err(e) => e,
            Ok(_) => panic!("{args:?} parsed"),
        };
        assert!(error(&[]).contains("nothing to check"));
        assert!(error(&["--host", "claud", "--", "x"]).contains("unknown host `claud`"));
        assert!(error(&["--bogus"]).contains("unknown option `--bogus`"));
        assert!(error(&["--url", "https://x/mcp"]).contains("no TLS"));
        assert!(error(&["--header", "x", "--url", "http://x"]).contains("NAME: VALUE"));
        assert!(error(&["--format", "xml", "--", "x"]).contains("table or json"));
        assert!(error(&["--timeout"]).contains("--timeout needs"));
    }
}
