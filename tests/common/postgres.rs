//! A throwaway PostgreSQL database per test, on a fresh machine too, never skipped:
//!
//! ```ignore
//! let db = common::postgres::TestDatabase::create().await; // panics, saying why, if it can't
//! let stores = mcp_result::sql::SqlStores::connect(db.url()).await.unwrap();
//! // ... the database is dropped when `db` is.
//! ```
//!
//! The server: `MCP_RESULT_TEST_POSTGRES` (a URL of a role that may create databases, e.g.
//! `postgres://me:pw@127.0.0.1:5432`) when set; otherwise the machine's Debian cluster
//! (`pg_lsclusters`): started if it is down (`pg_ctlcluster`), created if there is none
//! (`pg_createcluster`), and Debian's `postgresql` package installed first if it is missing
//! (`apt-get`, as root). The tests connect over TCP to 127.0.0.1 with a password, as the
//! role `mcp_result_test` (made through `runuser -u postgres -- psql`, peer auth, since the
//! default `pg_hba.conf` has no password login for `postgres` and there is no `root` role).
//!
//! Safe from many threads and test binaries at once: each step is idempotent and tolerates
//! a race (a cluster another process started, a role another process made), and every
//! database has a random name. A test that cannot get a server fails with the reason.

use std::{
    net::{SocketAddr, TcpStream},
    process::{Command, Output},
    sync::OnceLock,
    time::{Duration, Instant},
};

const ROLE: &str = "mcp_result_test";
const PASSWORD: &str = "mcp_result_test";

/// A database made for one test, dropped (with its connections) when this is dropped.
#[derive(Debug)]
pub struct TestDatabase {
    name: String,
    url: String,
    admin: String,
}

impl TestDatabase {
    /// Makes a fresh, empty database, bringing the server up first if needed.
    ///
    /// # Panics
    /// When no server can be had: the message says why and what to do.
    pub async fn create() -> Self {
        tokio::task::spawn_blocking(Self::create_blocking)
            .await
            .expect("creating the test database")
    }

    fn create_blocking() -> Self {
        let admin = match server() {
            Ok(admin) => admin.clone(),
            Err(why) => panic!("PostgreSQL is needed by this test and none could be had: {why}"),
        };
        let name = format!("mcp_result_test_{}_{}", std::process::id(), random_suffix());
        if let Err(why) = psql_url(&admin, &format!("CREATE DATABASE {name}")) {
            panic!("PostgreSQL: creating the test database {name}: {why}");
        }
        let url = format!("{admin}/{name}");
        Self { name, url, admin }
    }

    /// The database's URL (`postgres://mcp_result_test:...@127.0.0.1:5432/<name>`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its name.
    #[allow(dead_code)] // not every test that includes this file asks
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(why) = psql_url(&self.admin, &sql) {
            eprintln!(
                "PostgreSQL: dropping the test database {}: {why}",
                self.name
            );
        }
    }
}

/// The admin URL without a database (`postgres://role:password@host:port`), once per
/// process.
fn server() -> Result<&'static String, &'static String> {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    SERVER.get_or_init(bring_up).as_ref()
}

fn bring_up() -> Result<String, String> {
    if let Ok(url) = std::env::var("MCP_RESULT_TEST_POSTGRES") {
        let url = url.trim_end_matches('/').to_owned();
        psql_url(&url, "SELECT 1").map_err(|why| {
            format!("MCP_RESULT_TEST_POSTGRES is set, but connecting to it failed: {why}")
        })?;
        return Ok(url);
    }
    let port = local_cluster()?;
    wait_for_port(port, Duration::from_secs(60))?;
    let create_role = format!(
        "DO $$ BEGIN \
             CREATE ROLE {ROLE} LOGIN CREATEDB PASSWORD '{PASSWORD}'; \
         EXCEPTION WHEN duplicate_object OR unique_violation THEN \
             ALTER ROLE {ROLE} LOGIN CREATEDB PASSWORD '{PASSWORD}'; \
         END $$"
    );
    let mut last = String::new();
    // Two processes altering the role at once may fail with "tuple concurrently updated".
    for _ in 0..5 {
        match run(Command::new("runuser")
            .args(["-u", "postgres", "--", "psql", "-X", "-q"])
            .args([
                "-v",
                "ON_ERROR_STOP=1",
                "-p",
                &port.to_string(),
                "-c",
                &create_role,
            ])) {
            Ok(_) => {
                let admin = format!("postgres://{ROLE}:{PASSWORD}@127.0.0.1:{port}");
                drop_orphans(&admin);
                return Ok(admin);
            }
            Err(why) => last = why,
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!(
        "making the role {ROLE} as the `postgres` user failed (the tests run as root and \
         use `runuser`): {last}"
    ))
}

/// Drops the test databases of test processes that are gone (killed before their `Drop`
/// ran): their names carry the process id. Local servers only, where the ids mean
/// something; best effort.
fn drop_orphans(admin: &str) {
    let sql = r"SELECT datname FROM pg_database WHERE datname LIKE 'mcp\_result\_test\_%'";
    let Ok(listed) = run(Command::new("psql")
        .args(["-X", "-A", "-t", "-d"])
        .arg(format!("{admin}/postgres"))
        .args(["-c", sql]))
    else {
        return;
    };
    for name in String::from_utf8_lossy(&listed.stdout).lines() {
        let pid = name
            .trim_start_matches("mcp_result_test_")
            .split('_')
            .next();
        let alive = pid.is_some_and(|pid| std::path::Path::new("/proc").join(pid).exists());
        if !alive {
            let _ = psql_url(
                admin,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

/// The port of the machine's Debian cluster, started (and made, and installed) if needed.
fn local_cluster() -> Result<u16, String> {
    if which("pg_lsclusters").is_none() {
        install()?;
    }
    let clusters = run(Command::new("pg_lsclusters").arg("--no-header"))?;
    let first = String::from_utf8_lossy(&clusters.stdout)
        .lines()
        .map(|line| {
            line.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .find(|fields| fields.len() >= 4);
    let (version, cluster, port, status) = match first {
        Some(f) => (f[0].clone(), f[1].clone(), f[2].clone(), f[3].clone()),
        None => {
            let version = installed_version()?;
            // A concurrent process may have made it first: then this fails and the list
            // below has it.
            let _ = run(Command::new("pg_createcluster").args([&version, "main"]));
            let clusters = run(Command::new("pg_lsclusters").arg("--no-header"))?;
            let line = String::from_utf8_lossy(&clusters.stdout).to_string();
            let f: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            if f.len() < 4 {
                return Err(format!("pg_createcluster {version} main made no cluster"));
            }
            (f[0].clone(), f[1].clone(), f[2].clone(), f[3].clone())
        }
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("pg_lsclusters gave port `{port}`"))?;
    if status != "online" && !listening(port) {
        // Another process may be starting it too; then this fails and the wait succeeds.
        if let Err(why) = run(Command::new("pg_ctlcluster").args([&version, &cluster, "start"])) {
            if wait_for_port(port, Duration::from_secs(10)).is_err() {
                return Err(format!("pg_ctlcluster {version} {cluster} start: {why}"));
            }
        }
    }
    Ok(port)
}

/// Installs Debian's `postgresql` (as root, waiting for another install's dpkg lock).
fn install() -> Result<(), String> {
    let hint = "install Debian's `postgresql` package, or set MCP_RESULT_TEST_POSTGRES to the \
                URL of a role that may create databases";
    if which("apt-get").is_none() {
        return Err(format!(
            "no pg_lsclusters and no apt-get on this machine: {hint}"
        ));
    }
    let install = || {
        run(Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q"])
            .args(["--no-install-recommends", "postgresql"])
            .env("DEBIAN_FRONTEND", "noninteractive"))
    };
    if install().is_err() {
        run(Command::new("apt-get").args(["-o", "DPkg::Lock::Timeout=600", "update", "-q"]))
            .map_err(|why| format!("apt-get update: {why}; {hint}"))?;
        install().map_err(|why| format!("apt-get install postgresql: {why}; {hint}"))?;
    }
    Ok(())
}

fn installed_version() -> Result<String, String> {
    let mut versions: Vec<u32> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| format!("/usr/lib/postgresql: {e}"))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    versions.sort();
    versions
        .last()
        .map(u32::to_string)
        .ok_or_else(|| "no PostgreSQL server under /usr/lib/postgresql".to_owned())
}

fn listening(port: u16) -> bool {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&address, Duration::from_millis(500)).is_ok()
}

fn wait_for_port(port: u16, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    while !listening(port) {
        if Instant::now() > deadline {
            return Err(format!(
                "nothing listens on 127.0.0.1:{port} after {}s",
                limit.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Runs `sql` with `psql` on the server's maintenance database as the URL's role.
fn psql_url(admin: &str, sql: &str) -> Result<Output, String> {
    run(Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d"])
        .arg(format!("{admin}/postgres"))
        .args(["-c", sql]))
}

fn run(command: &mut Command) -> Result<Output, String> {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .map_err(|e| format!("{shown}: cannot run: {e}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!(
            "{shown}: {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    })
}

/// 64 bits that differ between calls, threads and processes (a name, not a secret).
fn random_suffix() -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{:016x}", hasher.finish())
}

/// `pg_stat_database.xact_commit` of the database at `url`: the transactions it committed
/// so far, once every other connection to it has ended and the count has held still for
/// 200 ms, waiting up to 10 s. A backend publishes its counters as it exits, a moment after
/// it has left `pg_stat_activity` (PostgreSQL 15 runs its status entry's cleanup before the
/// flush of its statistics), hence the still count. The reading is one transaction of its
/// own, however long it waits (`pg_stat_clear_snapshot` between looks), so it adds the same
/// one commit to the next reading each time.
#[cfg(feature = "postgres")]
#[allow(dead_code)]
pub async fn xact_commit(url: &str) -> i64 {
    use mcp_result::sql::sqlx::{self, Connection};
    // One connection of its own: a pool would count its own other connections as others.
    let mut connection = sqlx::postgres::PgConnection::connect(url).await.unwrap();
    let mut tx = connection.begin().await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        sqlx::query("SELECT pg_stat_clear_snapshot()")
            .execute(&mut *tx)
            .await
            .unwrap();
        let others: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        if others == 0 || std::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut last = None;
    let commits = loop {
        sqlx::query("SELECT pg_stat_clear_snapshot()")
            .execute(&mut *tx)
            .await
            .unwrap();
        let now: i64 = sqlx::query_scalar(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
        )
        .fetch_one(&mut *tx)
        .await
        .unwrap();
        if last == Some(now) || std::time::Instant::now() > deadline {
            break now;
        }
        last = Some(now);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    tx.commit().await.unwrap();
    connection.close().await.unwrap();
    commits
}
