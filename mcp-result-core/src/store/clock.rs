//! The application's clock: every expiry in every store (memory, SQLite, PostgreSQL) and
//! every cursor is judged by it, never by a database's clock.

use std::time::SystemTime;

/// Milliseconds from the Unix epoch to `time` (0 before the epoch).
pub(crate) fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

/// Seconds since the Unix epoch, now.
pub(crate) fn unix_now() -> u64 {
    now_ms() / 1000
}
