//! The JSON Lines audit sink: one record a line, `fsync`ed before the answer, read back by
//! a scan.

use std::{
    fs::{File, OpenOptions},
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use super::{AuditRecord, AuditSink, Phase};
use crate::store::{StoreError, StoreFuture};

/// Appends one JSON object per record to a file (JSON Lines), and `fsync`s the file
/// (`File::sync_data`) after each record before `record` returns: a record the framework
/// reported is on disk. Records are written in the order they are made (one writer lock).
#[derive(Debug, Clone)]
pub struct JsonLinesSink {
    file: Arc<Mutex<File>>,
    path: PathBuf,
}

impl JsonLinesSink {
    /// Opens (creating) `path` for appending. Events whose intent has no outcome in the
    /// file (a server stopped between the two) get their outcome now: `status: unknown`,
    /// `errorKind: outcome_unknown`.
    ///
    /// # Errors
    /// The file cannot be opened or read, or a line is not a record.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_owned();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)?;
        let dangling = dangling_intents(&path)?;
        for intent in &dangling {
            let line = serde_json::to_string(&AuditRecord::unknown_outcome_of(intent))?;
            writeln!(file, "{line}")?;
        }
        if !dangling.is_empty() {
            file.sync_data()?;
            tracing::warn!(
                events = dangling.len(),
                path = %path.display(),
                "audit: writes whose server stopped before their outcome: recorded as outcome unknown"
            );
        }
        Ok(Self {
            file: Arc::new(Mutex::new(file)),
            path,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Every record of a JSON Lines audit file, in order.
///
/// # Errors
/// The file cannot be read, or a line is not a record.
pub fn read_records(path: impl AsRef<Path>) -> std::io::Result<Vec<AuditRecord>> {
    let file = File::open(path)?;
    BufReader::new(file)
        .lines()
        .filter(|line| !matches!(line, Ok(l) if l.trim().is_empty()))
        .map(|line| {
            let line = line?;
            serde_json::from_str(&line)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
        .collect()
}

fn dangling_intents(path: &Path) -> std::io::Result<Vec<AuditRecord>> {
    let records = read_records(path)?;
    let mut intents: Vec<AuditRecord> = Vec::new();
    for record in records {
        match record.phase {
            Phase::Intent => intents.push(record),
            Phase::Outcome => intents.retain(|i| i.event_id != record.event_id),
            Phase::Replay | Phase::Approved | Phase::Rejected => {}
        }
    }
    Ok(intents)
}

/// `work` on the blocking pool: the audit file's I/O, its error a [`StoreError::Io`].
async fn on_blocking_pool<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T, StoreError> {
    let failed = |source| StoreError::Io {
        what: "audit file".into(),
        source,
    };
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| failed(std::io::Error::other(e)))?
        .map_err(failed)
}

impl AuditSink for JsonLinesSink {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let line = record.json_line().into_bytes();
            let file = self.file.clone();
            on_blocking_pool(move || {
                // One writer at a time: each record is one whole line.
                let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
                file.write_all(&line)?;
                file.sync_data()
            })
            .await
        })
    }

    /// A scan of the file, line by line, on a reader of its own: no write waits for it.
    /// Only whole lines are read (a record being appended is not one yet), and only those
    /// holding the id are parsed.
    fn approval_records<'a>(
        &'a self,
        approval_request_id: &'a str,
        limit: usize,
    ) -> StoreFuture<'a, Option<Vec<AuditRecord>>> {
        let (path, id) = (self.path.clone(), approval_request_id.to_owned());
        Box::pin(async move {
            let scan = move || -> std::io::Result<Vec<AuditRecord>> {
                let mut reader = BufReader::new(File::open(&path)?);
                let (mut records, mut line) = (Vec::new(), Vec::new());
                let id_bytes = id.as_bytes();
                if id_bytes.is_empty() {
                    // No record names the empty request.
                    return Ok(records);
                }
                while records.len() < limit {
                    line.clear();
                    // Bytes, not text: a line being appended may end inside a character.
                    if reader.read_until(b'\n', &mut line)? == 0 || line.last() != Some(&b'\n') {
                        break;
                    }
                    if !line.windows(id_bytes.len()).any(|w| w == id_bytes) {
                        continue;
                    }
                    let record: AuditRecord = serde_json::from_slice(&line)
                        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                    if record.approval_request_id.as_deref() == Some(id.as_str()) {
                        records.push(record);
                    }
                }
                Ok(records)
            };
            on_blocking_pool(scan).await.map(Some)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{envelope::ErrorKind, status::Status};

    fn intent(id: &str) -> AuditRecord {
        AuditRecord::intent(id.into(), "t", "local".into(), None, "d".into())
    }

    #[tokio::test]
    async fn a_dangling_intent_gets_an_unknown_outcome_when_the_file_is_opened_again() {
        let dir = std::env::temp_dir().join(format!("mcp-result-audit-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.jsonl");
        let sink = JsonLinesSink::open(&path).unwrap();
        sink.record(&intent("e-1")).await.unwrap();
        sink.record(&intent("e-2")).await.unwrap();
        let mut done = intent("e-2");
        done.phase = Phase::Outcome;
        done.status = Some(Status::Succeeded);
        sink.record(&done).await.unwrap();
        drop(sink);
        JsonLinesSink::open(&path).unwrap();
        let records = read_records(&path).unwrap();
        assert_eq!(records.len(), 4);
        assert_eq!(records[3].event_id, "e-1");
        assert_eq!(records[3].status, Some(Status::Unknown));
        assert_eq!(records[3].error_kind, Some(ErrorKind::OutcomeUnknown));
        // Opened a third time, nothing more is added.
        JsonLinesSink::open(&path).unwrap();
        assert_eq!(read_records(&path).unwrap().len(), 4);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
