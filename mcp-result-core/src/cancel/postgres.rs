//! The cancels of instances on one PostgreSQL database: `LISTEN` on one channel, `pg_notify`
//! to it.

use std::{sync::Weak, time::Duration};

use serde::{Deserialize, Serialize};
use sqlx::{postgres::PgListener, AnyPool};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Bus, CancelBus};
use crate::store::StoreError;

/// The channel every instance listens on.
pub(crate) const CHANNEL: &str = "mcp_result_cancel";

/// What crosses the channel: the sending bus, so it skips its own cancel (it cancelled its
/// calls before sending), and the hash of the call.
#[derive(Serialize, Deserialize)]
struct Message<'a> {
    from: &'a str,
    call: &'a str,
}

/// A bus's way to the other instances: the pool it sends through, its name, and the stop
/// of its listening task (when the bus drops).
pub(super) struct PgRemote {
    pool: AnyPool,
    name: String,
    _stop: DropGuard,
}

impl PgRemote {
    /// Sends the cancel of call `hash` to every instance listening. A failure is logged:
    /// the calls of this instance were cancelled already, and a lost cancel leaves a call
    /// to run to its end, as a cancel that comes too late does.
    pub(super) async fn send(&self, hash: &str) {
        let payload = serde_json::to_string(&Message {
            from: &self.name,
            call: hash,
        })
        .unwrap_or_default();
        // `pg_notify` returns `void`, a type sqlx's `Any` driver does not decode: the row
        // asked for is an integer.
        let sent = sqlx::query("SELECT 1 FROM (SELECT pg_notify($1, $2)) AS sent")
            .bind(CHANNEL)
            .bind(payload)
            .execute(&self.pool)
            .await;
        if let Err(error) = sent {
            tracing::warn!(%error, "cancel bus: sending a cancel to the other instances failed");
        }
    }
}

/// A bus on the PostgreSQL database of `pool`: listening before it is returned, so a cancel
/// sent once this returns reaches its calls.
pub(super) async fn connect(pool: &AnyPool) -> Result<CancelBus, StoreError> {
    let url = pool.connect_options().database_url.clone();
    let mut listener = PgListener::connect(url.as_str())
        .await
        .map_err(|e| StoreError::Invalid(format!("cancel bus: connecting its listener: {e}")))?;
    listener
        .listen(CHANNEL)
        .await
        .map_err(|e| StoreError::Invalid(format!("cancel bus: LISTEN {CHANNEL}: {e}")))?;
    let name = uuid::Uuid::now_v7().to_string();
    let stop = CancellationToken::new();
    let inner = std::sync::Arc::new_cyclic(|bus: &Weak<Bus>| {
        tokio::spawn(listen(listener, bus.clone(), name.clone(), stop.clone()));
        Bus {
            remote: Some(PgRemote {
                pool: pool.clone(),
                name,
                _stop: stop.drop_guard(),
            }),
            ..Bus::default()
        }
    });
    Ok(CancelBus { inner })
}

/// Cancels this instance's calls named on the channel by other buses, until `stop`. A lost
/// connection is reconnected (sqlx's listener does; cancels sent meanwhile are lost).
async fn listen(mut listener: PgListener, bus: Weak<Bus>, name: String, stop: CancellationToken) {
    loop {
        let received = tokio::select! {
            () = stop.cancelled() => return,
            received = listener.recv() => received,
        };
        let notification = match received {
            Ok(notification) => notification,
            Err(error) => {
                tracing::warn!(%error, "cancel bus: listening failed; again in a second");
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                }
            }
        };
        let Ok(message) = serde_json::from_str::<Message>(notification.payload()) else {
            tracing::debug!("cancel bus: a payload that is no cancel, ignored");
            continue;
        };
        if message.from == name {
            continue;
        }
        let Some(bus) = bus.upgrade() else {
            return;
        };
        let here = bus.cancel_local(message.call);
        tracing::debug!(here, "cancel bus: a cancel from another instance");
    }
}
