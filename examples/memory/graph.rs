//! The knowledge graph and its JSON Lines file: the reference's `KnowledgeGraphManager`,
//! rule for rule (who is a duplicate, what a delete takes with it, what a search matches),
//! and its file format byte for byte: one compact JSON object per line, `type` first,
//! entities before relations, lines joined by `\n` with none after the last.

use std::{
    fs, io,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use mcp_result::{ResultExt, ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    /// The name of the entity
    pub name: String,
    /// The type of the entity
    pub entity_type: String,
    /// An array of observation contents associated with the entity
    pub observations: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    /// The name of the entity where the relation starts
    pub from: String,
    /// The name of the entity where the relation ends
    pub to: String,
    /// The type of the relation
    pub relation_type: String,
}

/// The knowledge graph, or the part of it a search or a lookup found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Entities: {entities}; relations: {relations}")]
pub struct Graph {
    pub entities: Vec<Entity>,
    pub relations: Vec<Relation>,
}

/// One line of the file, as the reference writes it (`type` first).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line<'a> {
    Entity(&'a Entity),
    Relation(&'a Relation),
}

impl Graph {
    /// Adds the entities whose name is not in the graph yet (duplicates within `entities`
    /// are all added, as the reference adds them); the ones added.
    pub fn create_entities(&mut self, entities: Vec<Entity>) -> Vec<Entity> {
        let new: Vec<Entity> = entities
            .into_iter()
            .filter(|e| !self.entities.iter().any(|old| old.name == e.name))
            .collect();
        self.entities.extend(new.iter().cloned());
        new
    }

    /// Adds the relations not in the graph yet (same from, to and type); the ones added.
    pub fn create_relations(&mut self, relations: Vec<Relation>) -> Vec<Relation> {
        let new: Vec<Relation> = relations
            .into_iter()
            .filter(|r| !self.relations.contains(r))
            .collect();
        self.relations.extend(new.iter().cloned());
        new
    }

    /// Adds each entity's new observations (to the first entity of that name); the name of
    /// the first entity missing, if one is.
    pub fn add_observations(
        &mut self,
        additions: Vec<(String, Vec<String>)>,
    ) -> Result<Vec<(String, Vec<String>)>, String> {
        additions
            .into_iter()
            .map(|(name, contents)| {
                let Some(entity) = self.entities.iter_mut().find(|e| e.name == name) else {
                    return Err(name);
                };
                let new: Vec<String> = contents
                    .into_iter()
                    .filter(|c| !entity.observations.contains(c))
                    .collect();
                entity.observations.extend(new.iter().cloned());
                Ok((name, new))
            })
            .collect()
    }

    /// Removes the named entities and every relation from or to them.
    pub fn delete_entities(&mut self, names: &[String]) {
        self.entities.retain(|e| !names.contains(&e.name));
        self.relations
            .retain(|r| !names.contains(&r.from) && !names.contains(&r.to));
    }

    /// Removes observations from the first entity of each name; unknown names are skipped.
    pub fn delete_observations(&mut self, deletions: &[(String, Vec<String>)]) {
        for (name, observations) in deletions {
            if let Some(entity) = self.entities.iter_mut().find(|e| &e.name == name) {
                entity.observations.retain(|o| !observations.contains(o));
            }
        }
    }

    /// Removes the relations equal to one of `relations`.
    pub fn delete_relations(&mut self, relations: &[Relation]) {
        self.relations.retain(|r| !relations.contains(r));
    }

    /// The entities whose name, type or an observation contains `query` (ignoring case),
    /// and the relations that touch one of them.
    pub fn search(&self, query: &str) -> Graph {
        let query = query.to_lowercase();
        let found = |text: &str| text.to_lowercase().contains(&query);
        self.around(|e| {
            found(&e.name) || found(&e.entity_type) || e.observations.iter().any(|o| found(o))
        })
    }

    /// The named entities and the relations that touch one of them.
    pub fn open(&self, names: &[String]) -> Graph {
        self.around(|e| names.contains(&e.name))
    }

    fn around(&self, chosen: impl Fn(&Entity) -> bool) -> Graph {
        let entities: Vec<Entity> = self
            .entities
            .iter()
            .filter(|e| chosen(e))
            .cloned()
            .collect();
        let touches = |name: &String| entities.iter().any(|e| &e.name == name);
        let relations = self
            .relations
            .iter()
            .filter(|r| touches(&r.from) || touches(&r.to))
            .cloned()
            .collect();
        Graph {
            entities,
            relations,
        }
    }

    /// What going from `self` to `after` deletes, for a person to approve; `None` when it
    /// deletes nothing.
    pub fn deleted_in(&self, after: &Graph) -> Option<String> {
        let mut parts = Vec::new();
        let gone: Vec<&str> = (self.entities.iter())
            .filter(|e| !after.entities.iter().any(|a| a.name == e.name))
            .map(|e| e.name.as_str())
            .collect();
        if !gone.is_empty() {
            parts.push(format!("entities {}", gone.join(", ")));
        }
        let relations: Vec<String> = (self.relations.iter())
            .filter(|r| !after.relations.contains(r))
            .map(|r| format!("{} {} {}", r.from, r.relation_type, r.to))
            .collect();
        if !relations.is_empty() {
            parts.push(format!("relations {}", relations.join(", ")));
        }
        // Observations go with their entity; of entities that stay, the ones removed.
        let kept = self.entities.len() == after.entities.len();
        for (before, entity) in self.entities.iter().zip(&after.entities).filter(|_| kept) {
            let observations: Vec<&str> = (before.observations.iter())
                .filter(|o| !entity.observations.contains(o))
                .map(String::as_str)
                .collect();
            if !observations.is_empty() {
                let quoted = observations.join("\", \"");
                parts.push(format!("observations of {}: \"{quoted}\"", entity.name));
            }
        }
        (!parts.is_empty()).then(|| format!("Delete {}", parts.join("; ")))
    }
}

/// The file the graph lives in. Every change loads it, changes it and writes it whole, one
/// change at a time.
#[derive(Clone, Debug)]
pub struct GraphFile {
    path: Arc<PathBuf>,
    one_at_a_time: Arc<Mutex<()>>,
}

impl GraphFile {
    pub fn new(path: PathBuf) -> Self {
        Self {
            path: Arc::new(path),
            one_at_a_time: Arc::default(),
        }
    }

    /// The graph as the file holds it now (empty when there is no file).
    pub async fn read(&self) -> Result<Graph, ToolError> {
        let file = self.clone();
        blocking(move || file.load()).await
    }

    /// Loads the graph, applies `change` and writes the graph back (also when the change
    /// changed nothing, as the reference does), unless `change` fails.
    pub async fn change<T: Send + 'static>(
        &self,
        change: impl FnOnce(&mut Graph) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        let file = self.clone();
        blocking(move || {
            let _one = file.one_at_a_time.lock().unwrap_or_else(|e| e.into_inner());
            let mut graph = file.load()?;
            let answer = change(&mut graph)?;
            file.save(&graph)?;
            Ok(answer)
        })
        .await
    }

    fn load(&self) -> Result<Graph, ToolError> {
        let bytes = match fs::read(&*self.path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Graph::default()),
            read => read?,
        };
        let path = self.path.display();
        let bad = |line: usize, why: &dyn std::fmt::Display| {
            ToolError::internal_logged(format!("{path}, line {line}: {why}"))
        };
        // The reference reads bytes that are no UTF-8 as U+FFFD, and writes that back.
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = e.as_bytes()[..e.utf8_error().valid_up_to()].split(|b| *b == b'\n');
            bad(line.count(), &e)
        })?;
        let mut graph = Graph::default();
        // The reference skips the lines JavaScript's `trim()` empties, and any item whose
        // `type` is neither `entity` nor `relation`.
        let blank = |c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}';
        for (number, line) in text.split('\n').enumerate() {
            if line.trim_matches(blank).is_empty() {
                continue;
            }
            let bad = |why: &dyn std::fmt::Display| bad(number + 1, why);
            let item: Value = serde_json::from_str(line).map_err(|e| bad(&e))?;
            let parsed = match item.get("type").and_then(Value::as_str) {
                Some("entity") => Entity::deserialize(&item).map(|e| graph.entities.push(e)),
                Some("relation") => Relation::deserialize(&item).map(|r| graph.relations.push(r)),
                _ if item.is_null() => return Err(bad(&"null is no item")),
                _ => Ok(()),
            };
            parsed.map_err(|e| bad(&e))?;
        }
        Ok(graph)
    }

    /// Writes a temporary file beside the graph's and renames it over it, so the file is
    /// always whole, the old graph or the new one.
    fn save(&self, graph: &Graph) -> Result<(), ToolError> {
        let lines = (graph.entities.iter().map(Line::Entity))
            .chain(graph.relations.iter().map(Line::Relation))
            .map(|line| serde_json::to_string(&line))
            .collect::<Result<Vec<_>, _>>()
            .internal()?;
        let temporary = temporary_beside(&self.path);
        let written = fs::write(&temporary, lines.join("\n"))
            .and_then(|()| fs::rename(&temporary, &*self.path));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        Ok(written?)
    }
}

/// `<file>.<32 random hex digits>.tmp` in the file's directory, as the reference names it.
fn temporary_beside(path: &Path) -> PathBuf {
    let random = uuid::Uuid::now_v7().simple().to_string();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{random}.tmp"));
    path.with_file_name(name)
}

/// Runs file work on tokio's blocking pool, so it stalls no other call.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work).await.internal()?
}
