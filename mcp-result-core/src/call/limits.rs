//! Per-caller limits of one instance: [`CallLimits`].

use std::{
    collections::HashMap,
    num::NonZeroU32,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use governor::{clock::Clock as _, DefaultKeyedRateLimiter, Quota};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::wire::envelope::ToolError;

/// How long a caller refused for its concurrency is told to wait: 1 second.
pub const CONCURRENCY_RETRY_AFTER: Duration = Duration::from_secs(1);

/// How many callers' states a limit keeps before it forgets the idle ones (a caller
/// forgotten starts with a full allowance).
const TRACKED: usize = 10_000;

/// One limit: a rate (calls per period, all of them allowed in a burst) and a number of
/// calls running at once, each optional.
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::Limit;
///
/// let limit = Limit::new().rate(60, Duration::from_secs(60)).concurrent(4);
/// assert_eq!(limit.concurrency(), Some(4));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limit {
    rate: Option<(NonZeroU32, Duration)>,
    concurrent: Option<usize>,
}

impl Limit {
    /// No limit yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `calls` calls per `per` for each caller (GCRA, the `governor` crate: a
    /// caller may spend them at once, then one more every `per / calls`). `calls` of zero
    /// or a zero `per` sets no rate.
    #[must_use]
    pub fn rate(mut self, calls: u32, per: Duration) -> Self {
        self.rate = NonZeroU32::new(calls)
            .filter(|_| !per.is_zero())
            .map(|calls| (calls, per));
        self
    }

    /// At most `calls` calls of each caller running at once (zero sets no limit).
    #[must_use]
    pub fn concurrent(mut self, calls: usize) -> Self {
        self.concurrent = (calls > 0).then_some(calls);
        self
    }

    /// The number of calls running at once it allows, if it limits them.
    pub fn concurrency(&self) -> Option<usize> {
        self.concurrent
    }
}

/// Per-caller limits of one served instance ([`State::with_call_limits`](crate::State::with_call_limits)):
/// a rate and a number of calls running at once for each caller identity
/// ([`Identity::key`](crate::Identity::key), tenant and subject), for every tool or for a
/// tool of its own ([`Self::tool`]).
///
/// A call over a limit is refused before it runs, nothing done: an error result of kind
/// `policy_blocked`, status `blocked`, `retrySafe: true`, reason `caller rate limit` or
/// `caller concurrency limit`, and `retryAfterMs` (when the rate allows the next call; for
/// concurrency, [`CONCURRENCY_RETRY_AFTER`]). A keyed write is counted only when it would
/// run: its replay (the key's stored answer) is never refused nor counted, and a refused
/// call holds no key, so the same call after the wait runs once.
///
/// The limits live in the instance's memory: several instances behind a balancer each
/// allow the rate, so the rate a caller gets is multiplied by their number.
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::{CallLimits, Limit, State};
///
/// let limits = CallLimits::new(Limit::new().rate(120, Duration::from_secs(60)).concurrent(8))
///     .tool("export_report", Limit::new().rate(2, Duration::from_secs(3600)));
/// let state = State::new().with_call_limits(limits);
/// # let _ = state;
/// ```
pub struct CallLimits {
    every: Scope,
    tools: HashMap<String, Scope>,
}

impl std::fmt::Debug for CallLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallLimits")
            .field("every", &self.every.limit)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A limit and what it keeps of each caller.
struct Scope {
    limit: Limit,
    rate: Option<DefaultKeyedRateLimiter<String>>,
    running: Mutex<HashMap<String, Arc<Semaphore>>>,
    /// Calls admitted since the idle callers' states were last forgotten.
    admitted: AtomicUsize,
}

impl Scope {
    fn new(limit: Limit) -> Self {
        let rate = limit.rate.and_then(|(calls, per)| {
            Quota::with_period(per / calls.get())
                .map(|quota| DefaultKeyedRateLimiter::keyed(quota.allow_burst(calls)))
        });
        Self {
            limit,
            rate,
            running: Mutex::default(),
            admitted: AtomicUsize::new(0),
        }
    }

    /// Admits a call of `caller` under this limit: its permit to run (held until the call
    /// ends), or the refusal.
    fn admit(&self, caller: &str) -> Result<Option<OwnedSemaphorePermit>, ToolError> {
        let permit = match self.limit.concurrent {
            Some(at_once) => {
                let semaphore = {
                    let mut running = self
                        .running
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if running.len() >= TRACKED {
                        // Forget callers with nothing running.
                        running.retain(|_, s| Arc::strong_count(s) > 1);
                    }
                    Arc::clone(
                        running
                            .entry(caller.to_owned())
                            .or_insert_with(|| Arc::new(Semaphore::new(at_once))),
                    )
                };
                match semaphore.try_acquire_owned() {
                    Ok(permit) => Some(permit),
                    Err(_) => {
                        return Err(refused(
                            "caller concurrency limit",
                            &format!("this caller already has {at_once} calls running"),
                            CONCURRENCY_RETRY_AFTER,
                        ))
                    }
                }
            }
            None => None,
        };
        if let Some(rate) = &self.rate {
            if self.admitted.fetch_add(1, Ordering::Relaxed) % 1024 == 1023 && rate.len() > TRACKED
            {
                rate.retain_recent();
            }
            if let Err(not_until) = rate.check_key(&caller.to_owned()) {
                let wait = not_until.wait_time_from(rate.clock().now());
                let (calls, per) = self.limit.rate.unwrap_or((NonZeroU32::MIN, Duration::ZERO));
                return Err(refused(
                    "caller rate limit",
                    &format!(
                        "this caller may make {calls} calls per {} ms",
                        per.as_millis()
                    ),
                    wait.max(Duration::from_millis(1)),
                ));
            }
        }
        Ok(permit)
    }
}

/// The refusal of a call over a limit.
fn refused(reason: &str, why: &str, after: Duration) -> ToolError {
    let mut error = ToolError::policy_blocked(reason);
    error.message = format!(
        "Limited: {why}. Nothing ran. Call again after {} ms.",
        after.as_millis().max(1)
    );
    error.with_retry_after(after)
}

impl CallLimits {
    /// `every` for each caller's calls of every tool without a limit of its own.
    pub fn new(every: Limit) -> Self {
        Self {
            every: Scope::new(every),
            tools: HashMap::new(),
        }
    }

    /// `limit` for each caller's calls of tool `name`, instead of the limit of every tool
    /// (counted apart from it).
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, limit: Limit) -> Self {
        self.tools.insert(name.into(), Scope::new(limit));
        self
    }

    /// Admits a call of tool `tool` by `caller` (an identity key): the permit it holds
    /// while it runs, or the refusal, before anything of it ran.
    pub(crate) fn admit(
        &self,
        tool: &str,
        caller: &str,
    ) -> Result<Option<OwnedSemaphorePermit>, ToolError> {
        self.tools.get(tool).unwrap_or(&self.every).admit(caller)
    }
}
