//! Every link of README.md, CONTRIBUTING.md and the guide (`docs/guide/*.md`) works where
//! the Markdown is read: on GitHub, as files, and in rustdoc, as the crate docs and the
//! modules of `mcp_result::guide`.
//!
//! - Each relative link and link reference definition (not `http(s):`, not `mailto:`, not a
//!   rustdoc path such as `crate::...`) names a file or directory that exists, resolved
//!   against the directory of the file it is in; a `#anchor` names a heading of the target
//!   Markdown file (GitHub's slug of it).
//! - A reference link's label is defined (`[text][label]` without a definition is shown as
//!   plain brackets).
//! - No guide chapter holds a rustdoc path as a link target (GitHub cannot follow it).
//! - rustdoc: a guide file links to another file only through a reference link whose label
//!   `src/guide_links.md` (put before every chapter by `src/guide.rs`) defines first, and a
//!   label naming a chapter there names the module that includes that chapter; README.md
//!   the same way, through the `#![doc = "[label]: ..."]` lines of `src/lib.rs`.
//! - `src/guide.rs` includes every chapter, and the table of contents
//!   (`docs/guide/README.md`) lists them all, in that order.
//!
//! Every broken link is reported at once, with its file and line.

use std::{
    collections::{BTreeMap, HashMap},
    fs,
    path::{Component, Path, PathBuf},
};

use pulldown_cmark::{BrokenLink, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files whose links are checked, relative to the workspace.
fn checked_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md"), PathBuf::from("CONTRIBUTING.md")];
    files.extend(guide_files());
    files
}

/// `docs/guide/*.md`, sorted.
fn guide_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(workspace().join("docs/guide"))
        .expect("docs/guide")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| path.strip_prefix(workspace()).unwrap().to_path_buf())
        .collect();
    files.sort();
    files
}

fn is_chapter(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    path.parent() == Some(Path::new("docs/guide"))
        && name.len() > 3
        && name.as_bytes()[..2].iter().all(u8::is_ascii_digit)
        && name.as_bytes()[2] == b'-'
}

fn is_external(target: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
}

/// A rustdoc intra-doc path: `crate::x`, `super::x`, `self::x`, `derive@crate::X`, `crate`.
fn is_rustdoc_path(target: &str) -> bool {
    let path = match target.split_once('@') {
        Some((disambiguator, path))
            if !disambiguator.is_empty()
                && disambiguator.chars().all(|c| c.is_ascii_lowercase()) =>
        {
            path
        }
        _ => target,
    };
    let path = path.split('#').next().unwrap();
    ["crate", "super", "self"]
        .iter()
        .any(|root| path == *root || path.starts_with(&format!("{root}::")))
}

/// GitHub's anchor of a heading: lowercased, every character but letters, digits, spaces,
/// hyphens and underscores dropped, spaces made hyphens; a repeated one gets `-1`, `-2`...
fn slugs(headings: &[String]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    headings
        .iter()
        .map(|heading| {
            let slug: String = heading
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            let count = seen.entry(slug.clone()).or_insert(0);
            let slug = if *count == 0 {
                slug
            } else {
                format!("{slug}-{count}")
            };
            *count += 1;
            slug
        })
        .collect()
}

/// A link or a link reference definition found in a file.
#[derive(Debug)]
struct Link {
    line: usize,
    target: String,
    /// `None` for a definition; the link's kind otherwise.
    kind: Option<LinkType>,
    /// The label of a definition or a reference link.
    label: String,
}

#[derive(Debug, Default)]
struct Parsed {
    links: Vec<Link>,
    /// Definitions, by label as written.
    definitions: Vec<Link>,
    /// Full and collapsed reference links whose label has no definition: (line, label).
    undefined: Vec<(usize, String)>,
    /// The text of each heading, in order.
    headings: Vec<String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn parse<'a>(text: &'a str) -> Parsed {
    let mut undefined = Vec::new();
    // A shortcut link without a definition (`[x]`) may be plain text; a full or collapsed
    // one (`[text][label]`, `[label][]`) is meant as a link.
    let mut on_broken = |link: BrokenLink<'a>| -> Option<(CowStr<'a>, CowStr<'a>)> {
        if matches!(link.link_type, LinkType::Reference | LinkType::Collapsed) {
            undefined.push((link.span.start, link.reference.to_string()));
        }
        None
    };
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let parser = Parser::new_with_broken_link_callback(text, options, Some(&mut on_broken));
    let mut parsed = Parsed::default();
    let mut iter = parser.into_offset_iter();
    let mut heading: Option<String> = None;
    for (event, range) in iter.by_ref() {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                id,
                ..
            }) => parsed.links.push(Link {
                line: line_of(text, range.start),
                target: dest_url.to_string(),
                kind: Some(link_type),
                label: id.to_string(),
            }),
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => parsed.headings.extend(heading.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            _ => {}
        }
    }
    let mut definitions: Vec<Link> = iter
        .reference_definitions()
        .iter()
        .map(|(label, def)| Link {
            line: line_of(text, def.span.start),
            target: def.dest.to_string(),
            kind: None,
            label: label.to_owned(),
        })
        .collect();
    definitions.sort_by_key(|d| d.line);
    parsed.definitions = definitions;
    drop(iter);
    parsed.undefined = undefined
        .into_iter()
        .map(|(offset, label)| (line_of(text, offset), label))
        .collect();
    parsed
}

/// `a/b/../c` → `a/c`; `None` when it climbs out of the workspace.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// The guide's modules, from `src/guide.rs`: each chapter file (`docs/guide/NN-name.md`) and
/// the module that includes it, in the order of the file.
fn guide_modules() -> Vec<(PathBuf, String)> {
    let source = fs::read_to_string(workspace().join("src/guide.rs")).unwrap();
    let needle = "include_str!(\"../docs/guide/";
    let mut modules: Vec<(PathBuf, String)> = Vec::new();
    let mut from = 0;
    while let Some(at) = source[from..].find(needle) {
        let start = from + at + needle.len();
        let end = start + source[start..].find('"').unwrap();
        let file = PathBuf::from("docs/guide").join(&source[start..end]);
        from = end;
        if !is_chapter(&file) {
            continue;
        }
        let after = &source[end..];
        let module = after
            .find("pub mod ")
            .map(|at| {
                after[at + "pub mod ".len()..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .expect("a `pub mod` after the include");
        if !modules.iter().any(|(f, _)| *f == file) {
            modules.push((file, module));
        }
    }
    modules
}

/// The rustdoc path a Markdown file of the workspace is shown at.
fn rustdoc_path_of(file: &Path, modules: &[(PathBuf, String)]) -> Option<String> {
    if file == Path::new("README.md") {
        return Some("crate".into());
    }
    if file == Path::new("docs/guide/README.md") {
        return Some("crate::guide".into());
    }
    modules
        .iter()
        .find(|(f, _)| f == file)
        .map(|(_, module)| format!("crate::guide::{module}"))
}

/// CommonMark matches labels without regard to case.
fn label_key(label: &str) -> String {
    label.to_lowercase()
}

#[test]
fn every_link_resolves_on_github_and_in_rustdoc() {
    let root = workspace();
    let mut errors: Vec<String> = Vec::new();
    let mut headings: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    let mut anchors_of = |file: &Path| -> Option<Vec<String>> {
        if let Some(found) = headings.get(file) {
            return Some(found.clone());
        }
        let text = fs::read_to_string(root.join(file)).ok()?;
        let found = slugs(&parse(&text).headings);
        headings.insert(file.to_path_buf(), found.clone());
        Some(found)
    };

    let modules = guide_modules();
    let links_file = "src/guide_links.md";
    let rustdoc_links = parse(&fs::read_to_string(root.join(links_file)).unwrap());
    let rustdoc_labels: HashMap<String, &Link> = rustdoc_links
        .definitions
        .iter()
        .map(|d| (label_key(&d.label), d))
        .collect();
    for def in &rustdoc_links.definitions {
        if !is_rustdoc_path(&def.target) {
            errors.push(format!(
                "{links_file}:{}: [{}]: `{}` is not a rustdoc path",
                def.line, def.label, def.target
            ));
        }
        let module = def.target.split('#').next().unwrap();
        if let Some(name) = module.strip_prefix("crate::guide::") {
            if !modules.iter().any(|(_, m)| m == name) {
                errors.push(format!(
                    "{links_file}:{}: [{}]: no module `{name}` includes a chapter in src/guide.rs",
                    def.line, def.label
                ));
            }
        }
    }

    // README.md's labels for rustdoc: `#![doc = "[label]: target"]` lines of src/lib.rs.
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let crate_definitions: Vec<Link> = lib
        .lines()
        .enumerate()
        .filter_map(|(number, line)| {
            let def = line
                .trim()
                .strip_prefix("#![doc = \"[")?
                .strip_suffix("\"]")?;
            let (label, target) = def.split_once("]: ")?;
            Some(Link {
                line: number + 1,
                target: target.to_owned(),
                kind: None,
                label: label.to_owned(),
            })
        })
        .collect();
    let crate_labels: HashMap<String, &Link> = crate_definitions
        .iter()
        .map(|d| (label_key(&d.label), d))
        .collect();

    for file in checked_files() {
        let text = match fs::read_to_string(root.join(&file)) {
            Ok(text) => text,
            Err(e) => {
                errors.push(format!("{}: cannot read: {e}", file.display()));
                continue;
            }
        };
        let shown = file.display().to_string();
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let parsed = parse(&text);
        let own_anchors = slugs(&parsed.headings);
        let in_guide = file.starts_with("docs/guide");

        for (line, label) in &parsed.undefined {
            errors.push(format!(
                "{shown}:{line}: the reference link [{label}] has no definition"
            ));
        }

        if is_chapter(&file) {
            for (number, line) in text.lines().enumerate() {
                for pattern in ["](crate::", "](super::", "](derive@", "](self::"] {
                    if line.contains(pattern) {
                        errors.push(format!(
                            "{shown}:{}: a rustdoc path as a link target (`{pattern}`): GitHub \
                             cannot follow it; link the file (`04-retries.md`) with a \
                             reference link whose label src/guide_links.md maps",
                            number + 1
                        ));
                    }
                }
            }
        }

        // The targets: every inline link, and every definition (reference links use theirs).
        let inline = parsed
            .links
            .iter()
            .filter(|l| matches!(l.kind, Some(LinkType::Inline)));
        for link in inline.chain(parsed.definitions.iter()) {
            let target = link.target.as_str();
            let at = format!("{shown}:{}", link.line);
            if is_external(target) {
                continue;
            }
            if is_rustdoc_path(target) {
                if in_guide {
                    errors.push(format!(
                        "{at}: `{target}` is a rustdoc path, which GitHub cannot follow: link \
                         the file instead (src/guide_links.md maps the label for rustdoc)"
                    ));
                }
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target, None),
            };
            if target.is_empty() {
                errors.push(format!("{at}: an empty link target"));
                continue;
            }
            let resolved = if path.is_empty() {
                Some(file.clone())
            } else if path.starts_with('/') {
                errors.push(format!(
                    "{at}: `{target}` is absolute; write it relative to {shown}"
                ));
                continue;
            } else {
                normalize(&dir.join(path))
            };
            let Some(resolved) = resolved else {
                errors.push(format!("{at}: `{target}` leads out of the repository"));
                continue;
            };
            if !root.join(&resolved).exists() {
                errors.push(format!(
                    "{at}: `{target}`: {} does not exist",
                    resolved.display()
                ));
                continue;
            }
            if let Some(anchor) = anchor {
                let anchors = if resolved == file {
                    Some(own_anchors.clone())
                } else if resolved.extension().is_some_and(|e| e == "md") {
                    anchors_of(&resolved)
                } else {
                    None
                };
                match anchors {
                    Some(anchors) if anchors.iter().any(|a| a == anchor) => {}
                    Some(_) => errors.push(format!(
                        "{at}: `{target}`: {} has no heading whose anchor is `#{anchor}`",
                        resolved.display()
                    )),
                    None => errors.push(format!(
                        "{at}: `{target}`: an anchor into {}, which is not Markdown",
                        resolved.display()
                    )),
                }
            }

            // rustdoc shows README.md as the crate docs and the guide's files as modules: a
            // relative URL there is dead, so each label is defined again, first, for rustdoc.
            let (mapping_file, mapping) = if in_guide {
                (links_file, &rustdoc_labels)
            } else if file == Path::new("README.md") {
                ("src/lib.rs", &crate_labels)
            } else {
                continue;
            };
            match link.kind {
                Some(_) if path.is_empty() => {} // an anchor of the same page
                Some(_) => errors.push(format!(
                    "{at}: `{target}` is an inline link, which rustdoc leaves a dead relative \
                     URL: write a reference link, `[text][label]` with `[label]: {target}`, \
                     and map the label in {mapping_file}"
                )),
                None => match mapping.get(&label_key(&link.label)) {
                    None => errors.push(format!(
                        "{at}: the label [{}] is not in {mapping_file}, so rustdoc keeps \
                         `{target}`, a dead relative URL there",
                        link.label
                    )),
                    Some(mapped) => {
                        let expected =
                            rustdoc_path_of(&resolved, &modules).map(|module| match anchor {
                                Some(anchor) => format!("{module}#{anchor}"),
                                None => module,
                            });
                        if let Some(expected) = expected {
                            if mapped.target != expected {
                                errors.push(format!(
                                    "{at}: [{}] leads to {} here but to `{}` in rustdoc \
                                     ({mapping_file}:{}); it should be `{expected}`",
                                    link.label,
                                    resolved.display(),
                                    mapped.target,
                                    mapped.line
                                ));
                            }
                        }
                    }
                },
            }
        }
    }

    // Every chapter is a module, and the table of contents lists them in that order.
    let chapters: Vec<PathBuf> = guide_files()
        .into_iter()
        .filter(|f| is_chapter(f))
        .collect();
    for chapter in &chapters {
        if !modules.iter().any(|(f, _)| f == chapter) {
            errors.push(format!(
                "src/guide.rs: no module includes {}",
                chapter.display()
            ));
        }
    }
    let toc_file = Path::new("docs/guide/README.md");
    let toc = parse(&fs::read_to_string(root.join(toc_file)).unwrap());
    let definitions: HashMap<String, &Link> = toc
        .definitions
        .iter()
        .map(|d| (label_key(&d.label), d))
        .collect();
    let listed: Vec<PathBuf> = toc
        .links
        .iter()
        .filter_map(|link| {
            let target = match link.kind {
                Some(LinkType::Inline) => link.target.clone(),
                _ => definitions.get(&label_key(&link.label))?.target.clone(),
            };
            let file = normalize(&Path::new("docs/guide").join(target.split('#').next()?))?;
            is_chapter(&file).then_some(file)
        })
        .collect();
    let in_order: Vec<PathBuf> = modules.iter().map(|(f, _)| f.clone()).collect();
    if listed != in_order {
        errors.push(format!(
            "{}: the table of contents lists {:?}; src/guide.rs includes {:?}",
            toc_file.display(),
            listed,
            in_order
        ));
    }

    assert!(
        errors.is_empty(),
        "{} broken link(s):\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(
        slugs(&[
            "The error envelope, advertised lean".into(),
            "`mcp-result-check`: the same checks".into(),
            "Moving an rmcp server over, tool by tool".into(),
            "Retries".into(),
            "Retries".into(),
        ]),
        [
            "the-error-envelope-advertised-lean",
            "mcp-result-check-the-same-checks",
            "moving-an-rmcp-server-over-tool-by-tool",
            "retries",
            "retries-1",
        ]
    );
    assert!(is_rustdoc_path("crate::guide::retries"));
    assert!(is_rustdoc_path("derive@crate::ToolResult"));
    assert!(is_rustdoc_path("super::oauth"));
    assert!(is_rustdoc_path("crate"));
    assert!(!is_rustdoc_path("04-retries.md"));
    assert!(!is_rustdoc_path("docs/guide/README.md"));
}
