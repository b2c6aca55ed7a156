//! Several instances (issue 18): two instances of the example, each its own process
//! serving streamable HTTP statelessly, share one PostgreSQL database for every store and
//! for the desk's own notes. A retried write runs once wherever it lands, a result and an
//! artifact outlive the instance that made them, and the audit log has one event per
//! attempt from both.
//!
//! The calls are JSON-RPC POSTs (`tools/call`, MCP 2025-06-18, stateless): what any MCP
//! client sends, without a session to pin a caller to one instance.
//!
//! Behind a balancer (issue 49): a proxy in the test that routes each request to an instance
//! whose `/readyz` last answered `200`. An instance sent SIGTERM answers readiness `503` at
//! once while it still serves (liveness `200`) for its drain delay; the balancer stops
//! sending to it before the drain ends, and no call is lost.

use crate::common;

use std::{
    collections::{BTreeSet, HashSet},
    process::Stdio,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use common::postgres::TestDatabase;
use futures::future::join_all;
use mcp_result::{
    audit::{AuditRecord, Phase},
    sql::SqlStores,
};
use serde_json::{json, Value};
use tokio::process::{Child, Command};

/// A shared server key, as every instance of one deployment is configured.
const SERVER_KEY: &str = "c2NhbGUtb3V0LXRlc3Qtc2VydmVyLWtleS0zMi1ieXRlcyE=";

struct Instance {
    name: &'static str,
    url: String,
    port: u16,
    child: Child,
}

impl Instance {
    /// Starts the example as instance `name` on `port` (0: any free port).
    async fn start(name: &'static str, port: u16, database: &str) -> Instance {
        Self::start_with(name, port, database, &[]).await
    }

    /// [`Self::start`] with environment variables `env`.
    async fn start_with(
        name: &'static str,
        port: u16,
        database: &str,
        env: &[(&str, &str)],
    ) -> Instance {
        let port = if port == 0 { common::free_port() } else { port };
        let child = Command::new(common::example_path("helpdesk"))
            .args(["--http", &format!("127.0.0.1:{port}"), "--store", database])
            .envs(env.iter().copied())
            .env("MCP_RESULT_INSTANCE", name)
            .env("MCP_RESULT_SERVER_KEY", SERVER_KEY)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start the example");
        let url = format!("http://127.0.0.1:{port}/mcp");
        let instance = Instance {
            name,
            url,
            port,
            child,
        };
        instance.wait_ready().await;
        instance
    }

    async fn wait_ready(&self) {
        assert!(
            common::wait_listening(self.port).await,
            "instance {} did not listen on {}",
            self.name,
            self.port
        );
    }

    /// Kills the process (SIGKILL: no drain, no goodbye) and waits for it.
    async fn kill(mut self) -> u16 {
        self.child.kill().await.unwrap();
        self.port
    }
}

fn body(id: u64, tool: &str, arguments: Value, meta: Option<Value>) -> String {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

/// One JSON-RPC request to `url` as the holder of `token`, as a stateless MCP 2025-06-18
/// client sends it.
async fn post(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    body: String,
) -> reqwest::Result<reqwest::Response> {
    http.post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body)
        .send()
        .await
}

/// [`post`], answered: the reply's `result`.
async fn rpc(http: &reqwest::Client, url: &str, token: &str, body: String) -> Value {
    let response = post(http, url, token, body).await.unwrap();
    assert_eq!(response.status(), 200);
    let reply: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    reply["result"].clone()
}

async fn read_resource(http: &reqwest::Client, url: &str, token: &str, uri: &str) -> Value {
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}});
    let response = post(http, url, token, request.to_string()).await.unwrap();
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

fn note(ticket: &str, text: &str, key: &str) -> Value {
    json!({"ticketId": ticket, "body": text, "requestId": key})
}

/// The attempts at `tool` with idempotency key `key` in the shared audit log: each
/// attempt's records share its event id.
fn attempts<'a>(records: &'a [AuditRecord], tool: &str, key: &str) -> Vec<&'a AuditRecord> {
    records
        .iter()
        .filter(|r| r.tool == tool && r.idempotency_key.as_deref() == Some(key))
        .collect()
}

fn executions(records: &[&AuditRecord]) -> usize {
    records.iter().filter(|r| r.phase == Phase::Intent).count()
}

async fn notes(stores: &SqlStores, ticket: &str, text: &str) -> i64 {
    mcp_result::sql::sqlx::query_scalar(
        "SELECT COUNT(*) FROM helpdesk_notes WHERE ticket_id = $1 AND body = $2",
    )
    .bind(ticket)
    .bind(text)
    .fetch_one(stores.pool())
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_share_one_database() {
    let database = TestDatabase::create().await;
    let mut a = Instance::start("A", 0, database.url()).await;
    let b = Instance::start("B", 0, database.url()).await;
    let stores = SqlStores::open(database.url()).await.unwrap();
    let audit = stores.audit();
    let http = reqwest::Client::new();

    // 100 concurrent calls with one key, alternating between the instances.
    let calls = (0..100u64).map(|i| {
        let url = if i % 2 == 0 { &a.url } else { &b.url };
        rpc(
            &http,
            url,
            "alice-token",
            body(
                i,
                "add_internal_note",
                note("T-1001", "one note", "key-1"),
                None,
            ),
        )
    });
    let results = join_all(calls).await;
    let first = &results[0]["structuredContent"];
    assert_eq!(first["status"], "succeeded", "{}", results[0]);
    for result in &results {
        assert_eq!(
            &result["structuredContent"], first,
            "every caller gets the same result"
        );
    }
    let records = audit.records().await.unwrap();
    let key_1 = attempts(&records, "add_internal_note", "key-1");
    let instances: BTreeSet<&str> = key_1.iter().map(|r| r.instance.as_str()).collect();
    let events: HashSet<&str> = key_1.iter().map(|r| r.event_id.as_str()).collect();
    println!(
        "instances: {}, executions: {}",
        instances.len(),
        executions(&key_1)
    );
    assert_eq!(
        instances,
        BTreeSet::from(["A", "B"]),
        "both instances answered"
    );
    assert_eq!(executions(&key_1), 1, "the tool body ran once");
    assert_eq!(notes(&stores, "T-1001", "one note").await, 1);
    assert_eq!(events.len(), 100, "one audit event per attempt, in one log");
    assert_eq!(
        key_1.iter().filter(|r| r.phase == Phase::Replay).count()
            + key_1.iter().filter(|r| r.phase == Phase::Outcome).count(),
        100,
        "one answer recorded per attempt"
    );

    // One identity's key never replays another identity's result.
    let bobs = rpc(
        &http,
        &b.url,
        "bob-token",
        body(
            1,
            "add_internal_note",
            note("T-1001", "one note", "key-1"),
            None,
        ),
    )
    .await;
    assert_eq!(bobs["structuredContent"]["status"], "succeeded");
    assert_ne!(
        bobs["structuredContent"]["auditEventId"],
        first["auditEventId"]
    );
    assert_ne!(bobs["structuredContent"]["noteId"], first["noteId"]);
    assert_eq!(notes(&stores, "T-1001", "one note").await, 2);

    // A lost response: the request is sent, the connection closed before the answer is
    // read; the write runs to its end, and the retry with the key gets its result.
    {
        use tokio::io::AsyncWriteExt as _;
        let payload = body(
            1,
            "add_internal_note",
            note("T-1002", "lost", "key-2"),
            None,
        );
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer alice-token\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{payload}",
            a.port,
            payload.len()
        );
        let mut socket = tokio::net::TcpStream::connect(("127.0.0.1", a.port))
            .await
            .unwrap();
        socket.write_all(request.as_bytes()).await.unwrap();
        socket.shutdown().await.unwrap();
        drop(socket);
    }
    let retried = rpc(
        &http,
        &b.url,
        "alice-token",
        body(
            2,
            "add_internal_note",
            note("T-1002", "lost", "key-2"),
            None,
        ),
    )
    .await;
    assert_eq!(
        retried["structuredContent"]["status"], "succeeded",
        "{retried}"
    );
    let records = audit.records().await.unwrap();
    assert_eq!(
        executions(&attempts(&records, "add_internal_note", "key-2")),
        1
    );
    assert_eq!(notes(&stores, "T-1002", "lost").await, 1);

    // An artifact made through A is read through B by its owner, and by no one else.
    let import = rpc(
        &http,
        &a.url,
        "alice-token",
        body(3, "billing_import_dry_run", json!({"rows": 30}), None),
    )
    .await;
    let uri = import["structuredContent"]["report"]
        .as_str()
        .unwrap()
        .to_owned();
    let read = read_resource(&http, &b.url, "alice-token", &uri).await;
    assert!(
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("row,invoice,status,reason\n"),
        "{read}"
    );
    let denied = read_resource(&http, &b.url, "bob-token", &uri).await;
    assert_eq!(
        denied["error"]["message"],
        format!("resource not found: {uri}")
    );

    // A is killed and restarted: the retry with the key replays the stored result.
    let port = a.kill().await;
    a = Instance::start("A", port, database.url()).await;
    let after_restart = rpc(
        &http,
        &a.url,
        "alice-token",
        body(
            4,
            "add_internal_note",
            note("T-1001", "one note", "key-1"),
            None,
        ),
    )
    .await;
    assert_eq!(&after_restart["structuredContent"], first);

    // A kill between the claim and the completion: the mail upstream takes 300 ms, and A
    // dies after 100 ms of it. The retry does not send a second mail: the key's write
    // started, so it answers `in_progress` until the claim's lease ends and
    // `outcome_unknown` after (`mcp_result::idempotency`), never a second execution.
    let mail_key = json!({"io.github.mcp-result/idempotencyKey": "mail-1"});
    let pending = {
        let http = http.clone();
        let url = a.url.clone();
        let payload = body(
            5,
            "email_transcript",
            json!({"ticketId": "T-1003"}),
            Some(mail_key.clone()),
        );
        tokio::spawn(async move {
            // The instance dies under it: no answer is expected.
            let _ = post(&http, &url, "alice-token", payload).await;
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let port = a.kill().await;
    pending.await.unwrap();
    let _a = Instance::start("A", port, database.url()).await;
    let retry = rpc(
        &http,
        &b.url,
        "alice-token",
        body(
            6,
            "email_transcript",
            json!({"ticketId": "T-1003"}),
            Some(mail_key),
        ),
    )
    .await;
    assert_eq!(retry["isError"], true, "{retry}");
    assert_eq!(
        retry["structuredContent"]["errorKind"], "in_progress",
        "{retry}"
    );
    let records = audit.records().await.unwrap();
    let mails = attempts(&records, "email_transcript", "mail-1");
    assert_eq!(
        executions(&mails),
        1,
        "the interrupted write is never run again"
    );
    assert!(
        !mails
            .iter()
            .any(|r| r.phase == Phase::Outcome && r.status.is_some() && r.error_kind.is_none()),
        "the killed instance recorded no outcome"
    );

    drop(b);
    stores.close().await;
}

/// Exactly once (issue 29): `add_internal_note` writes its note in the write's transaction
/// (`mcp_result::Tx`), so a kill between the claim and the commit leaves nothing, and the
/// retry with the key runs fresh and succeeds: never `outcome_unknown`, never two notes.
/// First one kill in the middle of a note (the example waits 300 ms after inserting), then
/// kills under concurrent keyed load: every key ends with exactly one note, and every key
/// cut off succeeds on its retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transactional_write_killed_before_its_commit_left_nothing() {
    let database = TestDatabase::create().await;
    let delay = [("HELPDESK_NOTE_DELAY_MS", "300")];
    let mut a = Instance::start_with("A", 0, database.url(), &delay).await;
    let stores = SqlStores::open(database.url()).await.unwrap();
    let http = reqwest::Client::new();

    // One kill in the middle of a note: inserted, not committed.
    let pending = {
        let (http, url) = (http.clone(), a.url.clone());
        tokio::spawn(async move {
            let payload = body(1, "add_internal_note", note("T-1001", "cut", "k-cut"), None);
            let _ = post(&http, &url, "alice-token", payload).await;
        })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let port = a.kill().await;
    pending.await.unwrap();
    assert_eq!(
        notes(&stores, "T-1001", "cut").await,
        0,
        "nothing committed"
    );
    a = Instance::start_with("A", port, database.url(), &delay).await;
    let retry = rpc(
        &http,
        &a.url,
        "alice-token",
        body(2, "add_internal_note", note("T-1001", "cut", "k-cut"), None),
    )
    .await;
    assert_eq!(retry["isError"], false, "{retry}");
    assert_eq!(retry["structuredContent"]["status"], "succeeded", "{retry}");
    assert_eq!(notes(&stores, "T-1001", "cut").await, 1);

    // Kills under load: 16 callers, each sending keyed notes one after another, and the
    // instance killed and restarted three times meanwhile.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let url = a.url.clone();
    let callers: Vec<_> = (0..16u64)
        .map(|caller| {
            let (http, url, stop) = (http.clone(), url.clone(), stop.clone());
            tokio::spawn(async move {
                let mut sent = Vec::new();
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let key = format!("load-{caller}-{n}");
                    n += 1;
                    let payload = body(n, "add_internal_note", note("T-1002", &key, &key), None);
                    let answer = match post(&http, &url, "alice-token", payload).await {
                        Ok(response) if response.status() == 200 => {
                            response.json::<Value>().await.ok()
                        }
                        _ => None,
                    };
                    if answer.is_none() {
                        // The instance is down: wait for it.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    sent.push((key, answer));
                }
                sent
            })
        })
        .collect();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let port = a.kill().await;
        a = Instance::start_with("A", port, database.url(), &delay).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut sent = Vec::new();
    for caller in join_all(callers).await {
        sent.extend(caller.unwrap());
    }
    let cut_off = sent.iter().filter(|(_, answer)| answer.is_none()).count();
    assert!(
        cut_off >= 3,
        "the kills cut calls off: {cut_off} of {}",
        sent.len()
    );
    for (key, answer) in &sent {
        if let Some(answer) = answer {
            let result = &answer["result"];
            assert_eq!(
                result["structuredContent"]["status"], "succeeded",
                "{key}: {answer}"
            );
        }
    }
    // Every key, answered or cut off: its retry succeeds, and it has one note. The answered
    // keys' retries are replays, sixteen at a time; a cut-off key's retry runs the note
    // afresh, one at a time (fresh notes on one ticket queue on its next number; sixteen at
    // once are refused `conflict` by the example, by design), on an instance started without
    // the 300 ms pause in each note, which was there for the kills to land in.
    let port = a.kill().await;
    a = Instance::start("A", port, database.url()).await;
    let retried = |i: usize, key: &'_ str| {
        let (http, url, stores) = (&http, &a.url, &stores);
        let key = key.to_owned();
        async move {
            let retry = rpc(
                http,
                url,
                "alice-token",
                body(
                    10_000 + i as u64,
                    "add_internal_note",
                    note("T-1002", &key, &key),
                    None,
                ),
            )
            .await;
            assert_eq!(
                retry["structuredContent"]["status"], "succeeded",
                "{key}: {retry}"
            );
            assert_eq!(notes(stores, "T-1002", &key).await, 1, "{key}");
        }
    };
    let replays = sent
        .iter()
        .enumerate()
        .filter(|(_, (_, answer))| answer.is_some())
        .map(|(i, (key, _))| retried(i, key));
    futures::StreamExt::collect::<Vec<()>>(futures::StreamExt::buffer_unordered(
        futures::stream::iter(replays),
        16,
    ))
    .await;
    for (i, (key, _)) in sent.iter().enumerate().filter(|(_, (_, a))| a.is_none()) {
        retried(i, key).await;
    }
    stores.close().await;
}

/// The commits of two instances' lives on `database` in which they serve `writes` keyed
/// calls of `add_internal_note` (alternating, one at a time), after a first call each: the
/// instances started, the calls, the instances killed (so every backend published its
/// counters).
async fn commits_of_two_instances(database: &str, writes: u64) -> i64 {
    let before = common::postgres::xact_commit(database).await;
    let a = Instance::start("A", 0, database).await;
    let b = Instance::start("B", 0, database).await;
    let http = reqwest::Client::new();
    for i in 0..writes + 2 {
        let instance = if i % 2 == 0 { &a } else { &b };
        let key = format!("once-{writes}-{i}");
        let result = rpc(
            &http,
            &instance.url,
            "alice-token",
            body(
                i,
                "add_internal_note",
                note("T-1001", "counted", &key),
                None,
            ),
        )
        .await;
        assert_eq!(
            result["structuredContent"]["status"], "succeeded",
            "{result}"
        );
    }
    a.kill().await;
    b.kill().await;
    // The reading waits, in one transaction of its own, until every backend of theirs has
    // exited (and so published its counters): no look of the wait's is a commit counted here
    // (a loop of autocommit looks added up to 100, one per 50 ms a killed instance's backends
    // took to go, and made a life's count vary by as much).
    common::postgres::xact_commit(database).await - before
}

/// A transactional keyed write served over HTTP as the example serves it, by two instances
/// on one database, commits once: the claim, the audit intent, the lock check, the note, the
/// stored answer and the audit outcome in one transaction (PostgreSQL counts, less what
/// the instances' lives cost without the counted writes).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_transactional_keyed_write_over_http_commits_once() {
    const WRITES: u64 = 300;
    let database = TestDatabase::create().await;
    // The first life migrates the database and makes the desk's tables: not counted.
    commits_of_two_instances(database.url(), 0).await;
    // A life's own commits (starting, the pools, stopping) vary by a few: 300 writes make
    // that a hundredth of a commit each.
    let base = commits_of_two_instances(database.url(), 0).await;
    let commits = commits_of_two_instances(database.url(), WRITES).await;
    let per_write = (commits - base) as f64 / WRITES as f64;
    println!(
        "commits per transactional keyed write over HTTP: {per_write:.2} ({commits} in a life \
         with {WRITES} more writes, {base} without)"
    );
    // Autovacuum's own commits in the database may fall in the window.
    assert!(
        (0.95..=1.10).contains(&per_write),
        "commits per transactional keyed write over HTTP: {per_write:.2}"
    );
}

/// A balancer in front of instances: every 50 ms it asks each for `/readyz`, and it routes
/// each request to the next instance whose last answer was `200` (none: `503`). It keeps
/// which instance got each request, and when it first saw each not ready.
struct Balancer {
    port: u16,
    /// The instance (index) each request went to, and when.
    routed: Arc<Mutex<Vec<(usize, Instant)>>>,
    /// When each instance was first seen not ready.
    unready_since: Arc<Mutex<Vec<Option<Instant>>>>,
}

impl Balancer {
    async fn start(ports: Vec<u16>) -> Self {
        use common::http1;
        use tokio::io::{AsyncWriteExt, BufReader};
        let ready = Arc::new(Mutex::new(vec![true; ports.len()]));
        let unready_since = Arc::new(Mutex::new(vec![None; ports.len()]));
        let routed = Arc::new(Mutex::new(Vec::new()));
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        {
            let (ready, unready_since, http, ports) = (
                Arc::clone(&ready),
                Arc::clone(&unready_since),
                http.clone(),
                ports.clone(),
            );
            tokio::spawn(async move {
                loop {
                    for (index, port) in ports.iter().enumerate() {
                        let answer = http
                            .get(format!("http://127.0.0.1:{port}/readyz"))
                            .timeout(Duration::from_millis(500))
                            .send()
                            .await;
                        let is_ready = answer.is_ok_and(|a| a.status() == 200);
                        ready.lock().unwrap()[index] = is_ready;
                        let mut since = unready_since.lock().unwrap();
                        if !is_ready && since[index].is_none() {
                            since[index] = Some(Instant::now());
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            });
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        {
            let routed = Arc::clone(&routed);
            tokio::spawn(async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        return;
                    };
                    let (ready, routed, next, http, ports) = (
                        Arc::clone(&ready),
                        Arc::clone(&routed),
                        Arc::clone(&next),
                        http.clone(),
                        ports.clone(),
                    );
                    tokio::spawn(async move {
                        let (read, mut write) = stream.into_split();
                        let mut read = BufReader::new(read);
                        while let Some(request) = http1::read_request(&mut read).await {
                            let common::http1::Request {
                                path,
                                headers,
                                body,
                            } = request;
                            let chosen = {
                                let ready = ready.lock().unwrap();
                                let start = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                (0..ports.len())
                                    .map(|offset| (start + offset) % ports.len())
                                    .find(|&index| ready[index])
                            };
                            let (status, kind, answer) = match chosen {
                                None => {
                                    (503, "text/plain".to_owned(), b"no instance ready".to_vec())
                                }
                                Some(index) => {
                                    routed.lock().unwrap().push((index, Instant::now()));
                                    let mut request = http
                                        .post(format!("http://127.0.0.1:{}{path}", ports[index]))
                                        .body(body);
                                    for (name, value) in &headers {
                                        request = request.header(name.as_str(), value.as_str());
                                    }
                                    match request.send().await {
                                        Ok(answer) => {
                                            let status = answer.status().as_u16();
                                            let kind = answer
                                                .headers()
                                                .get("content-type")
                                                .and_then(|v| v.to_str().ok())
                                                .unwrap_or("application/json")
                                                .to_owned();
                                            (status, kind, answer.bytes().await.unwrap().to_vec())
                                        }
                                        Err(error) => (
                                            502,
                                            "text/plain".to_owned(),
                                            error.to_string().into_bytes(),
                                        ),
                                    }
                                }
                            };
                            let head = http1::response_head(status, &kind, answer.len());
                            if write.write_all(head.as_bytes()).await.is_err()
                                || write.write_all(&answer).await.is_err()
                            {
                                return;
                            }
                        }
                    });
                }
            });
        }
        Balancer {
            port,
            routed,
            unready_since,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_balancer_stops_sending_to_an_instance_draining_after_sigterm_and_no_call_is_lost() {
    let database = TestDatabase::create().await;
    let drain = [("HELPDESK_DRAIN_DELAY_MS", "2000")];
    let mut a = Instance::start_with("A", 0, database.url(), &drain).await;
    let b = Instance::start_with("B", 0, database.url(), &drain).await;
    let balancer = Balancer::start(vec![a.port, b.port]).await;
    let url = format!("http://127.0.0.1:{}/mcp", balancer.port);
    let http = reqwest::Client::new();

    // A caller reads a ticket through the balancer, 60 times, one after another.
    let caller = {
        let (http, url) = (http.clone(), url.clone());
        tokio::spawn(async move {
            let mut answers = Vec::new();
            for id in 0..60u64 {
                let body = body(id, "get_ticket", json!({"ticketId": "T-1001"}), None);
                let response = post(&http, &url, "alice-token", body).await.unwrap();
                let status = response.status().as_u16();
                let reply: Value =
                    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or_default();
                answers.push((status, reply));
                tokio::time::sleep(Duration::from_millis(40)).await;
            }
            answers
        })
    };
    // Once both have served, A is told to stop, as an orchestrator does.
    while balancer.routed.lock().unwrap().len() < 15 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid = a.child.id().expect("A runs");
    let terminated = Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Its readiness turns 503 at once, while it is still live and serving.
    let probe = |path: &'static str| {
        let http = http.clone();
        let port = a.port;
        async move {
            http.get(format!("http://127.0.0.1:{port}{path}"))
                .send()
                .await
                .map(|answer| answer.status().as_u16())
                .unwrap_or(0)
        }
    };
    loop {
        if probe("/readyz").await == 503 {
            break;
        }
        assert!(
            terminated.elapsed() < Duration::from_secs(1),
            "A's readiness still 200 a second after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(probe("/healthz").await, 200, "A is live while it drains");
    let draining_seen = terminated.elapsed();

    let answers = caller.await.unwrap();
    // No call lost: every one answered, through whichever instance.
    for (id, (status, reply)) in answers.iter().enumerate() {
        assert_eq!(*status, 200, "call {id}: {reply}");
        assert_eq!(reply["result"]["isError"], false, "call {id}: {reply}");
    }
    // The balancer saw A not ready before A's drain ended, and sent it nothing after.
    let unready = balancer.unready_since.lock().unwrap()[0].expect("A seen not ready");
    assert!(
        unready.duration_since(terminated) < Duration::from_millis(2000),
        "seen not ready {:?} after SIGTERM, its drain 2 s",
        unready.duration_since(terminated)
    );
    let routed = balancer.routed.lock().unwrap().clone();
    assert!(routed.iter().any(|&(to, _)| to == 0), "A served before");
    let late: Vec<_> = routed
        .iter()
        .filter(|&&(to, at)| to == 0 && at > unready)
        .collect();
    assert!(
        late.is_empty(),
        "sent to A after it was seen not ready: {late:?}"
    );
    assert!(
        routed
            .iter()
            .filter(|&&(to, at)| to == 1 && at > unready)
            .count()
            > 10,
        "B served the rest"
    );
    // A stops once its drain is over (and its running writes: none).
    let exited = tokio::time::timeout(Duration::from_secs(15), a.child.wait())
        .await
        .expect("A exits after its drain")
        .unwrap();
    assert!(exited.success(), "A exits cleanly after SIGTERM: {exited}");
    println!(
        "A's readiness 503 {draining_seen:?} after SIGTERM; the balancer saw it {:?} after",
        unready.duration_since(terminated)
    );
    drop(b);
}
