//! SQLite's one writer: every write of the stores on a SQLite file goes through one
//! connection, in the order the writes arrive, and commits in groups.
//!
//! SQLite lets one connection write at a time. Many pooled connections contending for that
//! lock (`BEGIN IMMEDIATE`) wait in SQLite's busy handler, which sleeps and retries: no
//! order, and a long tail. Here a write is a job on a queue (a tokio `mpsc`, first come first
//! served) served by one task on a thread of its own, which owns the one writing
//! connection. It takes the first waiting job and every job queued behind it (up to
//! [`GROUP_MAX`]), opens one `BEGIN IMMEDIATE` transaction, runs each job in a `SAVEPOINT` of
//! its own — a job that fails is rolled back to its savepoint, so it fails alone — and
//! commits once: one `fsync` (`synchronous = FULL`) for the whole group. Callers are answered
//! only after that commit; when it fails, every job of the group gets the error. (A job that
//! is one call wraps its statements itself and ends its group when it fails: see
//! `commit_group`.)
//!
//! A write that must hold a transaction open across the application's own statements
//! ([`Tx`](crate::Tx), the audit log's archive, an artifact put) leases the connection
//! instead: the writer finishes its group, hands the connection over, and waits for it to
//! come back (committed, or rolled back on drop) before it serves the queue again.
//!
//! Reads never queue here: they run on the pool's connections (WAL readers).

use std::{
    collections::VecDeque,
    fmt,
    ops::{Deref, DerefMut},
    sync::{
        atomic::{AtomicU8, Ordering},
        Arc,
    },
};

use futures::future::BoxFuture;
use sqlx::{AnyConnection, Connection as _, Executor as _};
use tokio::sync::{mpsc, oneshot};

use super::SQLITE_BUSY_TIMEOUT;
use crate::store::StoreError;

/// The most jobs one commit covers: 64.
pub const GROUP_MAX: usize = 64;

/// A job's turn: still queued, taken by the writer (it runs; its caller waits for the
/// answer whatever the time), or given up by its caller (it never runs).
const QUEUED: u8 = 0;
const TAKEN: u8 = 1;
const GIVEN_UP: u8 = 2;

/// The savepoint a job runs in (the writer's, around an atomic job; a job's own, around
/// the statements of one call).
pub(super) const SAVEPOINT: &str = "SAVEPOINT mcp_result_job";
/// A job's statements kept.
pub(super) const RELEASE: &str = "RELEASE mcp_result_job";
/// A job's statements undone.
pub(super) const UNDO: &str = "ROLLBACK TO mcp_result_job; RELEASE mcp_result_job";

/// A job's statements, run on the writer's connection inside the group's transaction.
trait Job: Send {
    /// Whether the writer opens a savepoint around it (its statements are several calls).
    fn atomic(&self) -> bool;
    /// Runs the statements; what they did, to answer once the group's commit is known.
    fn run<'c>(self: Box<Self>, connection: &'c mut AnyConnection) -> BoxFuture<'c, Ran>;
    /// Answers the caller without running (the writer could not begin).
    fn fail(self: Box<Self>, error: String);
}

/// A job that ran: whether its statements stand, and the answer to its caller, given the
/// group's commit error if any.
struct Ran {
    ok: bool,
    answer: Answer,
}

/// Answers a job's caller, given its group's commit error if any.
type Answer = Box<dyn FnOnce(Option<&str>) + Send>;

/// A job of a caller awaiting `reply`.
struct Pending<T, F> {
    atomic: bool,
    job: F,
    reply: oneshot::Sender<Result<T, StoreError>>,
    turn: Arc<AtomicU8>,
}

impl<T, F> Job for Pending<T, F>
where
    T: Send + 'static,
    F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<T, StoreError>>
        + Send
        + 'static,
{
    fn atomic(&self) -> bool {
        self.atomic
    }

    fn run<'c>(self: Box<Self>, connection: &'c mut AnyConnection) -> BoxFuture<'c, Ran> {
        Box::pin(async move {
            let Pending {
                job, reply, turn, ..
            } = *self;
            let taken = turn
                .compare_exchange(QUEUED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
            if !taken || reply.is_closed() {
                // Its caller is gone (cancelled before its turn, or gave up waiting for it):
                // nothing runs.
                return Ran {
                    ok: true,
                    answer: Box::new(|_| {}),
                };
            }
            let result = job(connection).await;
            let ok = result.is_ok();
            Ran {
                ok,
                answer: Box::new(move |commit: Option<&str>| {
                    let result = match commit {
                        Some(error) if ok => Err(StoreError::Database {
                            what: "committing a group of writes",
                            source: error.to_owned().into(),
                        }),
                        _ => result,
                    };
                    let _ = reply.send(result);
                }),
            }
        })
    }

    fn fail(self: Box<Self>, error: String) {
        let _ = self.reply.send(Err(StoreError::Database {
            what: "writing",
            source: error.into(),
        }));
    }
}

/// The connection, handed back by a [`Lease`]: whether a transaction is still open on it.
type Returned = (AnyConnection, bool);

enum Message {
    Job(Box<dyn Job>),
    Lease(oneshot::Sender<Result<Lease, String>>),
    Close(oneshot::Sender<()>),
}

/// The queue of SQLite's one writer (clones share it). The writer stops when it is closed or
/// when the last clone drops.
#[derive(Clone)]
pub(super) struct Writer {
    queue: mpsc::UnboundedSender<Message>,
}

impl fmt::Debug for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

/// A write that waited [`SQLITE_BUSY_TIMEOUT`] for its turn and did not run.
fn no_turn() -> StoreError {
    StoreError::Database {
        what: "waiting for the SQLite writer",
        source: format!(
            "no turn within {} s: a transactional write (`Tx`) held the writer all that time \
             (a store written from inside a `Tx` on the same stores waits for itself); \
             nothing of this write ran",
            SQLITE_BUSY_TIMEOUT.as_secs()
        )
        .into(),
    }
}

fn stopped() -> StoreError {
    StoreError::Invalid("SQL stores: the SQLite writer stopped (the stores were closed)".into())
}

/// Opens the writer's connection, with the pragmas of every connection of the file.
async fn connect(url: &str) -> Result<AnyConnection, sqlx::Error> {
    let mut connection = AnyConnection::connect(url).await?;
    for pragma in super::sqlite_pragmas() {
        connection.execute(pragma.as_str()).await?;
    }
    Ok(connection)
}

impl Writer {
    /// Connects the writer to `url` (a SQLite file) and starts it on a thread of its own, so
    /// that it outlives no runtime and no runtime's shutdown stops it.
    pub(super) async fn start(url: &str) -> Result<Self, StoreError> {
        let (queue, inbox) = mpsc::unbounded_channel();
        let (ready, started) = oneshot::channel();
        let url = url.to_owned();
        std::thread::Builder::new()
            .name("mcp-result-sqlite-writer".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(error) => {
                        let _ = ready.send(Err(error.to_string()));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match connect(&url).await {
                        Ok(connection) => {
                            let _ = ready.send(Ok(()));
                            serve(connection, &url, inbox).await;
                        }
                        Err(error) => {
                            let _ = ready.send(Err(error.to_string()));
                        }
                    }
                });
            })
            .map_err(|source| StoreError::Io {
                what: "SQL stores: starting the SQLite writer".into(),
                source,
            })?;
        match started.await {
            Ok(Ok(())) => Ok(Self { queue }),
            Ok(Err(error)) => Err(StoreError::Invalid(format!(
                "SQL stores: connecting the SQLite writer: {error}"
            ))),
            Err(_) => Err(stopped()),
        }
    }

    /// Runs `job` in the next group: its statements committed (with the group's) before
    /// this returns its value; on its error, none of them stays. An `atomic` job runs in a
    /// savepoint of the writer's; any other is one statement, or one call whose statements
    /// are wrapped in [`SAVEPOINT`] ... [`RELEASE`].
    ///
    /// # Errors
    /// Besides the job's own: no turn within [`SQLITE_BUSY_TIMEOUT`] (the writer is leased
    /// to a transactional write all that time, e.g. one whose tool writes to the same stores
    /// from inside its `Tx`, which would otherwise wait for itself): the job never runs.
    pub(super) async fn run<T, F>(&self, atomic: bool, job: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<T, StoreError>>
            + Send
            + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let turn = Arc::new(AtomicU8::new(QUEUED));
        self.queue
            .send(Message::Job(Box::new(Pending {
                atomic,
                job,
                reply,
                turn: turn.clone(),
            })))
            .map_err(|_| stopped())?;
        let mut answer = std::pin::pin!(answer);
        match tokio::time::timeout(SQLITE_BUSY_TIMEOUT, answer.as_mut()).await {
            Ok(answer) => answer.map_err(|_| stopped())?,
            Err(_) => {
                let given_up = turn
                    .compare_exchange(QUEUED, GIVEN_UP, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if given_up {
                    Err(no_turn())
                } else {
                    // The writer took it meanwhile: its answer is on the way.
                    answer.await.map_err(|_| stopped())?
                }
            }
        }
    }

    /// The writer's connection, for one transaction of the caller's, once the writes queued
    /// before it are committed. It comes back when the lease drops.
    ///
    /// # Errors
    /// No turn within [`SQLITE_BUSY_TIMEOUT`], as [`Writer::run`]: a lease handed over after
    /// its caller gave up comes back at once, unused.
    pub(super) async fn lease(&self) -> Result<Lease, StoreError> {
        let (reply, lease) = oneshot::channel();
        self.queue
            .send(Message::Lease(reply))
            .map_err(|_| stopped())?;
        tokio::time::timeout(SQLITE_BUSY_TIMEOUT, lease)
            .await
            .map_err(|_| no_turn())?
            .map_err(|_| stopped())?
            .map_err(|error| StoreError::Database {
                what: "connecting the SQLite writer",
                source: error.into(),
            })
    }

    /// Stops the writer after the writes queued before, and closes its connection.
    pub(super) async fn close(&self) {
        let (ack, closed) = oneshot::channel();
        if self.queue.send(Message::Close(ack)).is_ok() {
            let _ = closed.await;
        }
    }
}

/// The writer's loop: one message at a time, jobs in groups.
async fn serve(connection: AnyConnection, url: &str, mut inbox: mpsc::UnboundedReceiver<Message>) {
    let mut connection = Some(connection);
    // Messages taken off the queue but not served yet (a group cut by a lease, or the jobs a
    // broken group had not run).
    let mut backlog: VecDeque<Message> = VecDeque::new();
    loop {
        let message = match backlog.pop_front() {
            Some(message) => message,
            None => match inbox.recv().await {
                Some(message) => message,
                None => break,
            },
        };
        if let Message::Close(ack) = message {
            inbox.close();
            while let Ok(message) = inbox.try_recv() {
                backlog.push_back(message);
            }
            for message in backlog.drain(..) {
                refuse(message, "the stores were closed");
            }
            if let Some(connection) = connection.take() {
                let _ = connection.close().await;
            }
            let _ = ack.send(());
            return;
        }
        if connection.is_none() {
            match connect(url).await {
                Ok(fresh) => connection = Some(fresh),
                Err(error) => {
                    refuse(message, &error.to_string());
                    continue;
                }
            }
        }
        let Some(mut current) = connection.take() else {
            continue;
        };
        match message {
            Message::Close(_) => unreachable!("served above"),
            Message::Lease(reply) => connection = lend(current, reply).await,
            Message::Job(job) => {
                let mut group = vec![job];
                while group.len() < GROUP_MAX {
                    let next = match backlog.pop_front() {
                        Some(message) => message,
                        None => match inbox.try_recv() {
                            Ok(message) => message,
                            Err(_) => break,
                        },
                    };
                    match next {
                        Message::Job(job) => group.push(job),
                        other => {
                            backlog.push_front(other);
                            break;
                        }
                    }
                }
                let (healthy, unrun) = commit_group(&mut current, group).await;
                // A group that broke rolled back; the jobs it had not run yet go first.
                for job in unrun.into_iter().rev() {
                    backlog.push_front(Message::Job(job));
                }
                if healthy {
                    connection = Some(current);
                } else {
                    let _ = current.close().await;
                }
            }
        }
    }
    if let Some(connection) = connection {
        let _ = connection.close().await;
    }
}

/// Answers `message` with `error` without serving it.
fn refuse(message: Message, error: &str) {
    match message {
        Message::Job(job) => job.fail(error.to_owned()),
        Message::Lease(reply) => {
            let _ = reply.send(Err(error.to_owned()));
        }
        Message::Close(ack) => {
            let _ = ack.send(());
        }
    }
}

/// One group: `BEGIN IMMEDIATE`, the jobs, one `COMMIT`, then the answers. Whether the
/// connection is still fit to use, and the jobs not run (the group broke, or ended early).
///
/// An atomic job runs in a savepoint the writer opens; the statements between two jobs go
/// in one call (`RELEASE` the last job's savepoint, or roll back to it; open the next one's;
/// after the last job, `COMMIT`). A job that is not atomic is one statement, or one call
/// that wraps its statements in `SAVEPOINT mcp_result_job` ... `RELEASE mcp_result_job`
/// itself: no call of the writer's around it. When it fails, its savepoint (if any) is
/// rolled back and the group ends there: its commit also proves that SQLite did not roll
/// the whole transaction back (as it may on some errors); the jobs after it go to the next
/// group.
async fn commit_group(
    connection: &mut AnyConnection,
    group: Vec<Box<dyn Job>>,
) -> (bool, Vec<Box<dyn Job>>) {
    let begin = if group[0].atomic() {
        "BEGIN IMMEDIATE; SAVEPOINT mcp_result_job"
    } else {
        "BEGIN IMMEDIATE"
    };
    if let Err(error) = connection.execute(begin).await {
        let error = format!("beginning a group of writes: {error}");
        for job in group {
            job.fail(error.clone());
        }
        return (false, Vec::new());
    }
    let mut ran: Vec<Ran> = Vec::with_capacity(group.len());
    let mut jobs = group.into_iter().peekable();
    let mut broken = None;
    let mut commit_now = false;
    while let Some(job) = jobs.next() {
        let atomic = job.atomic();
        let done = job.run(connection).await;
        let ok = done.ok;
        ran.push(done);
        if !atomic && !ok {
            let _ = connection.execute(UNDO).await;
            commit_now = true;
            break;
        }
        let mut step: Vec<&str> = Vec::with_capacity(2);
        if atomic {
            // A job that failed: its statements go, the group's stay.
            step.push(if ok { RELEASE } else { UNDO });
        }
        match jobs.peek() {
            Some(next) if next.atomic() => step.push(SAVEPOINT),
            Some(_) => {}
            None => step.push("COMMIT"),
        }
        if step.is_empty() {
            continue;
        }
        if let Err(error) = connection.execute(step.join("; ").as_str()).await {
            // The transaction is in no known state (SQLite may have rolled it all back), or
            // its commit failed.
            broken = Some((error, jobs.peek().is_none()));
            break;
        }
    }
    if commit_now {
        if let Err(error) = connection.execute("COMMIT").await {
            broken = Some((error, true));
        }
    }
    let unrun: Vec<Box<dyn Job>> = jobs.collect();
    let Some((error, at_commit)) = broken else {
        for done in ran {
            (done.answer)(None);
        }
        return (true, unrun);
    };
    let _ = connection.execute("ROLLBACK").await;
    let error = if at_commit {
        format!("committing: {error}")
    } else {
        format!("a group of writes broke, nothing of it was committed: {error}")
    };
    for done in ran {
        (done.answer)(Some(&error));
    }
    (false, unrun)
}

/// Hands `connection` to the caller of `reply` and waits for it to come back; `None` when it
/// did not (the writer connects again).
async fn lend(
    connection: AnyConnection,
    reply: oneshot::Sender<Result<Lease, String>>,
) -> Option<AnyConnection> {
    let (back, returned) = oneshot::channel::<Returned>();
    let lease = Lease {
        connection: Some(connection),
        back: Some(back),
        open: false,
    };
    // A caller gone meanwhile drops the lease it was not given: it comes back at once.
    drop(reply.send(Ok(lease)));
    let (mut connection, open) = returned.await.ok()?;
    if open && connection.execute("ROLLBACK").await.is_err() {
        let _ = connection.close().await;
        return None;
    }
    Some(connection)
}

/// The writer's connection, lent for one transaction; it goes back to the writer when this
/// drops, rolled back there if still open.
pub(super) struct Lease {
    connection: Option<AnyConnection>,
    back: Option<oneshot::Sender<Returned>>,
    open: bool,
}

impl Lease {
    fn connection(&mut self) -> &mut AnyConnection {
        self.connection
            .as_mut()
            .expect("a lease holds its connection until it drops")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let (Some(connection), Some(back)) = (self.connection.take(), self.back.take()) {
            let _ = back.send((connection, self.open));
        }
    }
}

/// A write transaction of the stores: on the pool (PostgreSQL; an in-memory SQLite
/// database), or on the SQLite writer's connection, leased. Rolled back when dropped
/// uncommitted. `&mut *transaction` is the connection, an executor.
pub(super) struct Transaction(Inner);

enum Inner {
    Pool(sqlx::Transaction<'static, sqlx::Any>),
    Lease(Lease),
}

impl Transaction {
    /// `begin` (`BEGIN IMMEDIATE`, ...) on the pool's connection `pool`.
    pub(super) async fn on_pool(
        pool: &sqlx::AnyPool,
        begin: &'static str,
    ) -> Result<Self, sqlx::Error> {
        Ok(Self(Inner::Pool(pool.begin_with(begin).await?)))
    }

    /// `begin` on the writer's connection, leased until this commits or drops.
    pub(super) async fn on_writer(writer: &Writer, begin: &str) -> Result<Self, StoreError> {
        let mut lease = writer.lease().await?;
        lease
            .connection()
            .execute(begin)
            .await
            .map_err(super::failed("beginning a write"))?;
        lease.open = true;
        Ok(Self(Inner::Lease(lease)))
    }

    /// Commits.
    ///
    /// # Errors
    /// The commit failed (the database may have committed before the answer was lost).
    pub(super) async fn commit(self) -> Result<(), sqlx::Error> {
        match self.0 {
            Inner::Pool(transaction) => transaction.commit().await,
            Inner::Lease(mut lease) => {
                lease.connection().execute("COMMIT").await?;
                lease.open = false;
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction").finish_non_exhaustive()
    }
}

impl Deref for Transaction {
    type Target = AnyConnection;
    fn deref(&self) -> &AnyConnection {
        match &self.0 {
            Inner::Pool(transaction) => transaction,
            Inner::Lease(lease) => lease
                .connection
                .as_ref()
                .expect("a lease holds its connection until it drops"),
        }
    }
}

impl DerefMut for Transaction {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match &mut self.0 {
            Inner::Pool(transaction) => transaction,
            Inner::Lease(lease) => lease.connection(),
        }
    }
}
