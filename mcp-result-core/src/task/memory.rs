//! [`MemoryTasks`]: tasks in the process.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::SystemTime,
};

use super::record::{TaskRecord, TaskStore};
use crate::store::{clock::unix_ms, StoreError, StoreFuture};

/// Tasks in memory: the default. Clones share the tasks. They end with the process, so a
/// task outlives its request but not its server; for tasks that survive a restart or are
/// read on another instance use the SQL stores. Expired tasks are removed when a task is
/// created.
#[derive(Debug, Clone, Default)]
pub struct MemoryTasks {
    tasks: Arc<Mutex<HashMap<String, TaskRecord>>>,
}

impl MemoryTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn now() -> u64 {
    unix_ms(SystemTime::now())
}

impl TaskStore for MemoryTasks {
    fn create<'a>(&'a self, task: &'a TaskRecord, per_caller: usize) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let now = now();
            let mut tasks = self.lock();
            tasks.retain(|_, stored| stored.expires_ms() > now);
            let held = tasks.values().filter(|t| t.caller == task.caller).count();
            if held >= per_caller {
                return Err(StoreError::Refused(format!(
                    "this caller holds {per_caller} tasks, its limit"
                )));
            }
            tasks.insert(task.id.clone(), task.clone());
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let now = now();
            Ok(self
                .lock()
                .get(id)
                .filter(|task| task.expires_ms() > now)
                .cloned())
        })
    }

    fn replace<'a>(&'a self, task: &'a TaskRecord) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let now = now();
            let mut tasks = self.lock();
            match tasks.get_mut(&task.id) {
                Some(stored)
                    if stored.expires_ms() > now
                        && stored.version.checked_add(1) == Some(task.version) =>
                {
                    *stored = task.clone();
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    /// `false`: this process's memory.
    fn durable(&self) -> bool {
        false
    }
}
