//! The page's HTML: its askama templates and how values are shown in them.

use super::*;

#[derive(Template)]
#[template(path = "approvals/message.html")]
pub(super) struct Message<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) status: u16,
    pub(super) heading: &'a str,
    pub(super) line: &'a str,
    pub(super) back: bool,
    /// Where to sign in, on a `401` of a page that signs in with OAuth.
    pub(super) sign_in: Option<String>,
    /// Where a page that moves on by itself (`Refresh`) goes: its link, for a browser
    /// that does not refresh.
    pub(super) next: Option<&'a str>,
}

pub(super) struct Row {
    pub(super) id: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) caller: String,
    pub(super) asked: String,
    pub(super) expires: String,
}

#[derive(Template)]
#[template(path = "approvals/list.html")]
pub(super) struct List<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    /// The session's CSRF token, for its sign-out form.
    pub(super) csrf: &'a str,
    pub(super) rows: Vec<Row>,
}

/// The page a sign-in link opens: one button, whose `POST` uses the link.
#[derive(Template)]
#[template(path = "approvals/sign-in.html")]
pub(super) struct SignIn<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) token: &'a str,
}

/// One row of a request's arguments ([`argument_rows`]).
pub(super) struct Argument {
    /// How deep it is: 0 an argument, 1 a property or item of one, ….
    pub(super) depth: usize,
    pub(super) name: String,
    pub(super) value: String,
    /// An object or array: how many properties or items follow on their own rows.
    pub(super) summary: Option<String>,
    /// The value's length in characters, when it was cut.
    pub(super) cut: Option<usize>,
    /// Its JSON Pointer, as a query value (the link to the whole value).
    pub(super) pointer: String,
    pub(super) withheld: bool,
}

#[derive(Template)]
#[template(path = "approvals/request.html")]
pub(super) struct Detail<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) id: &'a str,
    pub(super) tool: &'a str,
    pub(super) title: &'a str,
    pub(super) text: &'a str,
    pub(super) caller: String,
    pub(super) asked: String,
    pub(super) expires: String,
    pub(super) arguments: Rows,
    /// The signed-in decider made this request, and may not approve it
    /// ([`ApprovalsPage::allow_self_approval`]).
    pub(super) own: bool,
    /// The arguments that hold characters changing what a reader sees
    /// ([`Review::hidden`]): the warning above them.
    pub(super) hidden: Vec<String>,
    pub(super) csrf: &'a str,
    /// A decided request: its decision, as a sentence, and its audit trail; no forms.
    pub(super) decided: Option<Decided>,
}

/// What a decided request's page shows instead of its forms.
pub(super) struct Decided {
    pub(super) decision: String,
    pub(super) trail: Trail,
}

/// A decided request's audit trail: the records about it
/// ([`AuditSink::approval_records`](crate::audit::AuditSink::approval_records)).
pub(super) enum Trail {
    /// The records, oldest first; whether the log holds more than are shown.
    Records(Vec<Step>, bool),
    /// The server's audit sink cannot be read back (tracing).
    NotReadable,
    /// Reading it failed (logged).
    Failed,
}

/// One audit record of a request's trail, as a table row.
pub(super) struct Step {
    pub(super) time: String,
    /// `blocked`, `approved`, `rejected`, `attempt` or `outcome`.
    pub(super) step: &'static str,
    pub(super) event_id: String,
    /// The record's `status`, with its `errorKind` in brackets.
    pub(super) status: String,
    /// Who decided, the approval's id, the upstream id.
    pub(super) detail: String,
}

impl Step {
    pub(super) fn of(record: &AuditRecord) -> Self {
        let step = match record.phase {
            Phase::Intent => "attempt",
            // The answer that asked for a human (`approval_required`), not a decline.
            Phase::Outcome if record.requires_human_review == Some(true) => "blocked",
            Phase::Outcome => "outcome",
            // Not in a trail today: a replay's call is answered before the gate.
            Phase::Replay => "replay",
            Phase::Approved => "approved",
            Phase::Rejected => "rejected",
        };
        // The wire's words: `blocked`, `policy_blocked`.
        let kind = record.error_kind.as_ref().map(|kind| {
            serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        });
        let status = match (record.status, kind) {
            (Some(status), Some(kind)) => format!("{status} ({kind})"),
            (Some(status), None) => status.to_string(),
            (None, Some(kind)) => format!("({kind})"),
            (None, None) => String::new(),
        };
        let mut detail = Vec::new();
        if let Some(approver) = &record.approver {
            let by = if matches!(record.phase, Phase::Approved | Phase::Rejected) {
                "by"
            } else {
                "approved by"
            };
            detail.push(format!("{by} {}", shown_caller(approver)));
        }
        if let Some(approval) = &record.approval_id {
            detail.push(format!("approval {approval}"));
        }
        if let Some(external) = &record.external_id {
            detail.push(format!("external id {external}"));
        }
        Step {
            time: chrono::DateTime::parse_from_rfc3339(&record.time).map_or_else(
                |_| record.time.clone(),
                |t| t.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string(),
            ),
            step,
            event_id: record.event_id.clone(),
            status,
            detail: detail.join("; "),
        }
    }
}

pub(super) fn html(status: StatusCode, body: Result<String, askama::Error>) -> Response {
    match body {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(error) => {
            tracing::error!(%error, "approvals page: a template failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// `tenant:subject` as people read it: `alice (acme)`.
pub(super) fn shown_identity(identity: &Identity) -> String {
    match &identity.tenant {
        Some(tenant) => format!("{} ({tenant})", identity.subject),
        None => identity.subject.clone(),
    }
}

/// A caller key (`tenant:subject`, encoded) as people read it.
pub(super) fn shown_caller(caller: &str) -> String {
    let decode = |part: &str| part.replace("%3A", ":").replace("%25", "%");
    match caller.split_once(':') {
        Some((tenant, subject)) => format!("{} ({})", decode(subject), decode(tenant)),
        None => decode(caller),
    }
}

/// A Unix time as `2026-12-15 10:04:05 UTC`.
pub(super) fn shown_time(at: u64) -> String {
    i64::try_from(at)
        .ok()
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map_or_else(
            || at.to_string(),
            |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        )
}

/// A decided request's decision as a sentence: `Approved by carol (acme): approval …, not
/// used yet.` (or `used by the write it was for`, or `expired unused`), `Rejected by carol
/// (acme): reason`. Empty while pending.
pub(super) fn shown_decision(request: &ApprovalRequest) -> String {
    match &request.decision {
        Decision::Pending => String::new(),
        Decision::Approved {
            approval_id,
            approver,
        } => {
            let state = if request.expired() {
                "expired unused"
            } else {
                "not used yet"
            };
            format!(
                "Approved by {}: approval {approval_id}, {state}.",
                shown_caller(approver)
            )
        }
        Decision::Used {
            approval_id,
            approver,
        } => format!(
            "Approved by {}: approval {approval_id}, used by the write it was for.",
            shown_caller(approver)
        ),
        Decision::Rejected { approver, reason } => {
            format!("Rejected by {}: {reason}", shown_caller(approver))
        }
    }
}

/// An expiry with how far away it is.
pub(super) fn shown_expiry(at: u64) -> String {
    let now = unix_now();
    if at <= now {
        return format!("{} (expired)", shown_time(at));
    }
    let minutes = (at - now).div_ceil(60);
    format!("{} (in {minutes} min)", shown_time(at))
}

/// The arguments of a review as table rows, from row `from` on: each argument, and inside
/// objects and arrays each property and each item on a row of its own, indented by depth
/// (up to [`MAX_DEPTH_SHOWN`]; deeper values as JSON); a string as its text, other values
/// as JSON; each value cut past [`SHOWN_CHARS`] characters with its length and a link to
/// the whole of it ([`ValuePage`]); characters that change what a reader sees as their code
/// points (`[U+202E]`; a string's newlines and tabs kept); then each withheld secret. Rows
/// stop once their text passes [`ROWS_BYTES`]: the [`Rows`] say where the next page of
/// rows starts.
pub(super) fn argument_rows(review: &Review, from: usize) -> Rows {
    let mut all = Vec::new();
    if let Value::Object(arguments) = &review.arguments {
        for (name, value) in arguments {
            let pointer = format!("/{}", crate::wire::pointer::escape(name));
            flatten(name, value, 0, pointer, &mut all, from);
        }
    }
    for pointer in &review.withheld {
        let name = pointer
            .strip_prefix('/')
            .unwrap_or(pointer)
            .replace("~1", "/")
            .replace("~0", "~");
        all.push(Flat::Withheld(shown_name(&name)));
    }
    let total = all.len();
    let mut rows = Vec::new();
    let mut bytes = 0;
    for row in all.into_iter().skip(from) {
        let argument = match row {
            Flat::Shown(argument) => argument,
            Flat::Withheld(name) => Argument {
                depth: 0,
                name,
                value: String::new(),
                summary: None,
                cut: None,
                pointer: String::new(),
                withheld: true,
            },
            Flat::Skipped => continue,
        };
        bytes += argument.name.len() + argument.value.len() + argument.pointer.len() + 64;
        if bytes > ROWS_BYTES && !rows.is_empty() {
            break;
        }
        rows.push(argument);
    }
    let next = (from + rows.len() < total).then_some(from + rows.len());
    Rows {
        rows,
        from,
        next,
        total,
    }
}

/// A row of [`argument_rows`] before the page's bound is applied.
enum Flat {
    Shown(Argument),
    Withheld(String),
    /// A row before `from`, counted but not rendered.
    Skipped,
}

/// Appends the rows of argument or item `name` (`value`, at `pointer`, `depth` levels in)
/// to `rows`: rendered from row `from` on, counted before it.
fn flatten(
    name: &str,
    value: &Value,
    depth: usize,
    pointer: String,
    rows: &mut Vec<Flat>,
    from: usize,
) {
    let render = rows.len() >= from;
    let container = match value {
        Value::Array(items) if depth < MAX_DEPTH_SHOWN && !items.is_empty() => {
            Some(plural(items.len(), "item", "items"))
        }
        Value::Object(map) if depth < MAX_DEPTH_SHOWN && !map.is_empty() => {
            Some(plural(map.len(), "property", "properties"))
        }
        _ => None,
    };
    if !render {
        rows.push(Flat::Skipped);
    } else if let Some(summary) = &container {
        rows.push(Flat::Shown(Argument {
            depth,
            name: shown_name(name),
            value: String::new(),
            summary: Some(summary.clone()),
            cut: None,
            pointer: String::new(),
            withheld: false,
        }));
    } else {
        let text = match value {
            Value::String(text) => text.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        let length = text.chars().count();
        let (shown, cut) = match text.char_indices().nth(SHOWN_CHARS) {
            Some((at, _)) => (format!("{}…", marked(&text[..at], KEPT)), Some(length)),
            None => (marked(&text, KEPT).into_owned(), None),
        };
        rows.push(Flat::Shown(Argument {
            depth,
            name: shown_name(name),
            value: shown,
            summary: None,
            cut,
            pointer: form_urlencoded::byte_serialize(pointer.as_bytes()).collect(),
            withheld: false,
        }));
    }
    if container.is_none() {
        return;
    }
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let label = format!("item {}", index + 1);
                flatten(
                    &label,
                    item,
                    depth + 1,
                    format!("{pointer}/{index}"),
                    rows,
                    from,
                );
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let at = format!("{pointer}/{}", crate::wire::pointer::escape(key));
                flatten(key, item, depth + 1, at, rows, from);
            }
        }
        _ => {}
    }
}

/// The characters a shown value keeps as they are: a string's lines and tabs.
const KEPT: &[char] = &['\n', '\t'];

/// How many characters of a property's name a row shows.
const NAME_CHARS: usize = 100;

/// A property name as a row shows it: cut past [`NAME_CHARS`] with its length, its
/// characters that change what a reader sees as their code points.
fn shown_name(name: &str) -> String {
    match name.char_indices().nth(NAME_CHARS) {
        Some((at, _)) => format!(
            "{}… ({} characters)",
            marked(&name[..at], &[]),
            name.chars().count()
        ),
        None => marked(name, &[]).into_owned(),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The rows of one page of a request's arguments ([`argument_rows`]).
pub(super) struct Rows {
    pub(super) rows: Vec<Argument>,
    /// The first row shown (0: the page starts at the first argument).
    pub(super) from: usize,
    /// Where the next page of rows starts, when there are more.
    pub(super) next: Option<usize>,
    /// How many rows there are in all.
    pub(super) total: usize,
}

/// One argument value, whole, a page of [`VALUE_CHARS`] characters at a time.
#[derive(Template)]
#[template(path = "approvals/value.html")]
pub(super) struct ValuePage<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) csrf: &'a str,
    pub(super) id: &'a str,
    /// The value's JSON Pointer, as shown, and as a query value.
    pub(super) pointer: String,
    pub(super) query: String,
    /// The characters shown (their code points marked), and which: `from`, `to` of `total`.
    pub(super) text: String,
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) total: usize,
    pub(super) previous: Option<usize>,
    pub(super) next: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(arguments: Value) -> Review {
        Review::of(&arguments, |pointer| pointer == "/token")
    }

    #[test]
    fn nested_arguments_are_rows_item_by_item_with_whole_values_a_click_away() {
        let long = "x".repeat(SHOWN_CHARS + 5);
        let rows = argument_rows(
            &review(serde_json::json!({
                "relations": [{"from": "Bob", "to": "Ann"}, {"from": "\u{202e}eve"}],
                "note": long,
                "token": "s3cret"
            })),
            0,
        );
        let shown: Vec<(usize, &str, &str, Option<&str>)> = rows
            .rows
            .iter()
            .map(|r| {
                (
                    r.depth,
                    r.name.as_str(),
                    r.value.as_str(),
                    r.summary.as_deref(),
                )
            })
            .collect();
        let cut = format!("{}…", "x".repeat(SHOWN_CHARS));
        let mut expected = vec![
            (0, "relations", "", Some("2 items")),
            (1, "item 1", "", Some("2 properties")),
            (2, "from", "Bob", None),
            (2, "to", "Ann", None),
            (1, "item 2", "", Some("1 property")),
            (2, "from", "[U+202E]eve", None),
            (0, "note", cut.as_str(), None),
            (0, "token", "", None),
        ];
        // Without `preserve_order`, serde_json keeps object keys sorted.
        if !cfg!(feature = "preserve-order") {
            expected = vec![
                expected[6],
                expected[0],
                expected[1],
                expected[2],
                expected[3],
                expected[4],
                expected[5],
                expected[7],
            ];
        }
        assert_eq!(shown, expected);
        let note = rows.rows.iter().find(|r| r.name == "note").unwrap();
        assert_eq!(
            (note.cut, note.pointer.as_str()),
            (Some(SHOWN_CHARS + 5), "%2Fnote")
        );
        assert!(rows.rows.last().unwrap().withheld);
        assert_eq!((rows.next, rows.total), (None, 8));
    }

    #[test]
    fn a_page_of_rows_stays_bounded_and_says_where_the_next_starts() {
        let arguments: serde_json::Map<String, Value> = (0..5_000)
            .map(|n| (format!("a{n:05}"), Value::String("v".repeat(150))))
            .collect();
        let review = review(Value::Object(arguments));
        let first = argument_rows(&review, 0);
        let bytes: usize = first
            .rows
            .iter()
            .map(|r| r.name.len() + r.value.len())
            .sum();
        assert!(bytes <= ROWS_BYTES, "{bytes}");
        let next = first.next.expect("more rows");
        assert_eq!(first.total, 5_000);
        let second = argument_rows(&review, next);
        assert_eq!(second.from, next);
        assert_eq!(second.rows[0].name, first_name_after(&first));
    }

    fn first_name_after(rows: &Rows) -> String {
        let last: usize = rows.rows.last().unwrap().name[1..].parse().unwrap();
        format!("a{:05}", last + 1)
    }
}
