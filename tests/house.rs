//! The modules of `mcp-result-core` import each other without a circle (issue 50, item 5):
//! its dependencies point down, so a module can be read, and changed, knowing only the
//! modules beneath it. Read from the source: every path a file names through `crate::`,
//! `super::` or `self::` (in `use` trees, `{...}` groups included, and inline paths) leads
//! to the file of the longest module it names, through the crate root's `pub use`
//! re-exports (`crate::State` is `state.rs`'s). Comments (doc links), each file's
//! `#[cfg(test)] mod tests`, a module's own re-exports (`pub use`: its face) and what a
//! module names of its own submodules (its rooms) are not imports. A circle fails with its
//! files and the lines that tie them.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// A module's path from the crate root: `["serve", "http", "edge"]`.
type Module = Vec<String>;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The module a file under `src` is: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs` the root.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file: line comments gone, and its test module (last, by this crate's
/// custom) cut off.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines()
        .map(|line| line.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A use tree at `at`: `ident (as ident)? (:: tree)?`, `{tree, ...}` or `*`; the paths it
/// names, and where it ends. Inline paths (`crate::a::b::f(x)`) read as trees that stop at
/// the first character that is none of these.
fn tree(text: &[u8], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let skip = |at: &mut usize| {
        while *at < text.len() && text[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    skip(&mut at);
    if text.get(at) == Some(&b'{') {
        let mut paths = Vec::new();
        at += 1;
        loop {
            skip(&mut at);
            match text.get(at) {
                Some(b'}') => return (paths, at + 1),
                Some(b',') => at += 1,
                None => return (paths, at),
                _ => {
                    let (inner, end) = tree(text, at);
                    if end == at {
                        return (paths, at);
                    }
                    paths.extend(inner);
                    at = end;
                }
            }
        }
    }
    if text.get(at) == Some(&b'*') {
        return (vec![Vec::new()], at + 1);
    }
    let start = at;
    while at < text.len() && (text[at].is_ascii_alphanumeric() || text[at] == b'_') {
        at += 1;
    }
    if at == start {
        return (Vec::new(), start);
    }
    let ident = String::from_utf8_lossy(&text[start..at]).into_owned();
    if text[at..].starts_with(b"::") {
        let (rest, end) = tree(text, at + 2);
        if end == at + 2 {
            return (vec![vec![ident]], at);
        }
        let paths = rest
            .into_iter()
            .map(|mut path| {
                path.insert(0, ident.clone());
                path
            })
            .collect();
        return (paths, end);
    }
    (vec![vec![ident]], at)
}

/// Every path the code names from `crate`, `super` or `self`, made absolute, with its line.
fn named(code: &str, module: &Module) -> Vec<(Module, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (keyword, base) in [("crate::", 0), ("super::", 1), ("self::", 2)] {
        let mut from = 0;
        while let Some(offset) = code[from..].find(keyword) {
            let at = from + offset;
            from = at + keyword.len();
            let boundary =
                at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            if !boundary || (base == 0 && code[..at].ends_with("$")) {
                continue;
            }
            // A re-export is the module's face, not a use of what it names.
            let before = code[..at].trim_end();
            if ["pub use", "pub(crate) use", "pub(super) use"]
                .iter()
                .any(|export| before.ends_with(export))
            {
                continue;
            }
            let mut prefix: Module = match base {
                0 => Vec::new(),
                2 => module.clone(),
                // `super` of the file's module (`a/b.rs` and `a/b/mod.rs` are `a::b`).
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = from;
            // `super::super::...`
            while base == 1 && code[rest..].starts_with("super::") {
                prefix.pop();
                rest += "super::".len();
            }
            let line = code[..at].matches('\n').count() + 1;
            for path in tree(bytes, rest).0 {
                let mut full = prefix.clone();
                full.extend(path);
                found.push((full, line));
            }
        }
    }
    found
}

/// The file module a path leads to: its longest prefix that is a module file, through the
/// root's re-exports for a name at the root.
fn resolve(
    path: &Module,
    modules: &BTreeSet<Module>,
    exports: &BTreeMap<String, Module>,
    depth: usize,
) -> Option<Module> {
    let longest = (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix));
    match longest {
        Some(module) => Some(module),
        None if depth < 4 => {
            let first = path.first()?;
            let mut target = exports.get(first)?.clone();
            target.extend(path[1..].iter().cloned());
            resolve(&target, modules, exports, depth + 1)
        }
        None => None,
    }
}

#[test]
fn the_modules_of_the_core_crate_import_each_other_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp-result-core/src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let modules: BTreeSet<Module> = files.iter().map(|file| module_of(&src, file)).collect();
    assert!(modules.contains(&vec!["state".to_owned()]), "{modules:?}");

    // The root's re-exports: `pub use state::State;` makes `crate::State` state.rs's.
    let lib = code(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut exports = BTreeMap::new();
    for line_start in lib
        .match_indices("\npub use ")
        .map(|(at, _)| at + "\npub use ".len())
    {
        for path in tree(lib.as_bytes(), line_start).0 {
            if let Some(name) = path.last() {
                exports.insert(name.clone(), path.clone());
            }
        }
    }
    assert_eq!(
        exports.get("State"),
        Some(&vec!["state".to_owned(), "State".to_owned()])
    );

    // file -> file, with the first line that ties them.
    let mut edges: BTreeMap<Module, BTreeMap<Module, usize>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        if module.is_empty() {
            continue; // the root declares every module; it imports none of them back
        }
        let code = code(&std::fs::read_to_string(file).unwrap());
        for (path, line) in named(&code, &module) {
            let Some(target) = resolve(&path, &modules, &exports, 0) else {
                continue;
            };
            // A module's own submodules are its rooms, not a floor below it.
            if !target.starts_with(&module) && !target.is_empty() {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_insert(line);
            }
        }
    }
    let state = vec!["state".to_owned()];
    assert!(
        edges
            .get(&state)
            .is_some_and(|to| to.contains_key(&vec!["cancel".to_owned()])),
        "state.rs holds the cancel bus: the reading must see that edge"
    );

    // Circles: strongly connected components of more than one file (Tarjan).
    let nodes: Vec<&Module> = modules.iter().collect();
    let index_of: BTreeMap<&Module, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let next: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            edges
                .get(*m)
                .map(|to| to.keys().map(|t| index_of[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    struct Tarjan<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        counter: usize,
        circles: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.counter);
            self.low[v] = self.counter;
            self.counter += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.next[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.circles.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        next: &next,
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        stack: Vec::new(),
        on_stack: vec![false; nodes.len()],
        counter: 0,
        circles: Vec::new(),
    };
    for v in 0..nodes.len() {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    let shown: Vec<String> = tarjan
        .circles
        .iter()
        .map(|circle| {
            let members: BTreeSet<usize> = circle.iter().copied().collect();
            let mut ties = Vec::new();
            for &v in circle {
                for &w in &next[v] {
                    if members.contains(&w) {
                        let line = edges[nodes[v]][nodes[w]];
                        ties.push(format!(
                            "{} -> {} (line {line})",
                            nodes[v].join("::"),
                            nodes[w].join("::")
                        ));
                    }
                }
            }
            ties.join("; ")
        })
        .collect();
    assert!(shown.is_empty(), "import circles: {shown:#?}");
}
