#!/usr/bin/env bash
# Compile time of a result-heavy crate: 200 result types deriving `ToolResult` (beside serde's
# `Serialize` and schemars' `JsonSchema`) against the same 200 types with only the serde and
# schemars derives, measured in the same run (see BENCHMARKS.md). Target: within 1.2x.
#
# Generates, under target/compile-bench-results/ (never committed), a workspace of two
# library crates with the same types, in 10 modules (src/m00.rs .. src/m09.rs) of 20 types:
#
#   results-derived  #[derive(Serialize, JsonSchema, ToolResult)] and the #[tool_result]
#                    attributes (summary templates);
#   results-plain    #[derive(Serialize, JsonSchema)] only.
#
# The only difference is the derive and its attribute: both crates have the same
# dependencies (mcp-result by path, schemars, serde) and the same field types (the write
# results hold mcp-result's `Status` and `AuditEventId` in both). The mix, for type i:
#
#   i % 10 in 0..=3  read result with a summary template naming its fields;
#   i % 10 in 4, 5   read result, generated summary (no `#[tool_result]`);
#   i % 10 in 6..=8  write result (`status`, `retry_safe`, `audit_event_id` and 1-6 more
#                    fields); a summary template for 6 and 7;
#   i % 10 == 9      an internally tagged enum of three variants (literal summary for every
#                    other one).
#
# Structs have 5-10 fields (strings, numbers, options, vecs, and from 7 fields on nested
# structs of their own, which derive serde and schemars only, in both crates), camelCase
# keys, doc comments. The build kinds of each round, both crates, alternating which goes
# first:
#
#   clean  `cargo clean -p <crate>` then `cargo build -p <crate>` (dependencies prebuilt);
#   touch  src/m05.rs touched, no change, then `cargo build`: an incremental rebuild with
#          every macro expanded again and everything else reused;
#   edit   one type changed (a field of `Result100` in src/m05.rs toggled between `u32` and
#          `u64`), then `cargo build`.
#
# The timing, the rounds and the tables are scripts/compile-bench.sh's (shared with
# scripts/compile-time.sh): wall and cpu (user+sys) time of each build, the median of each
# and the median of the per-round ratios (range), then every round with its load average.
#
# Usage: scripts/compile-time-results.sh   (ROUNDS=15 by default)
#        REV=HEAD scripts/compile-time-results.sh   (the last commit, not the working tree)
#        KEEP=1 ...   keep target/compile-bench-results/ and its built dependencies
# The builds are short (2-6 s), so single rounds swing with the load: 15 rounds by default.
ROUNDS="${ROUNDS:-15}"
source "$(dirname "$0")/compile-bench.sh"

BENCH="$ROOT/target/compile-bench-results"
TYPES=200
MODULES=10
TOUCHED=m05
EDITED=100 # the first type of src/m05.rs
CRATES=(results-derived results-plain)
COLUMNS=("ToolResult + serde + schemars" "serde + schemars")
RATIO="ToolResult / plain"
KINDS=(clean touch edit)
TARGET=1.2
SUBJECT="$TYPES result types, with and without \`#[derive(ToolResult)]\`"

# attributes <derives> <serde> <tool_result line or nothing>: a result type's attributes.
attributes() {
  printf '#[derive(%s)]\n#[serde(%s)]\n' "$1" "$2"
  if [[ -n $3 ]]; then printf '%s\n' "$3"; fi
}

# emit_type <variant> <i>: result type i (and its nested types), `derived` or `plain`.
emit_type() {
  local variant=$1 i=$2 n shape fields derive summary=""
  n=$(printf '%03d' "$i")
  shape=$((i % 10))
  fields=$((5 + (i / 10 + shape) % 6))
  derive="Serialize, JsonSchema"
  [[ $variant == derived ]] && derive="Serialize, JsonSchema, ToolResult"

  if ((shape == 9)); then
    if [[ $variant == derived ]] && (((i / 10) % 2)); then
      summary='#[tool_result(summary = "Lookup finished")]'
    fi
    cat <<EOF

/// Lookup $n: what was found.
$(attributes "$derive" 'tag = "outcome", rename_all = "snake_case"' "$summary")
pub enum Result$n {
    /// One match.
    Found { id: String, title: String, score: f64, tags: Vec<String> },
    /// Nothing matched.
    Missing { reason: String, suggestions: Vec<String> },
    /// Several matches: the caller must choose.
    Ambiguous { candidates: Vec<Item$n>, total: u32 },
}
EOF
    emit_item "$n"
    return
  fi

  if ((shape >= 6)); then
    if [[ $variant == derived ]] && ((shape < 8)); then
      summary='#[tool_result(summary = "Item {id} updated: {status}")]'
    fi
    cat <<EOF

/// Update $n: the item after the change.
$(attributes "$derive" 'rename_all = "camelCase"' "$summary")
pub struct Result$n {
    /// The item changed.
    pub id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
EOF
    local extra=(
      "    /// The fields the update changed.\n    pub changed_fields: Vec<String>,"
      "    pub version: u64,"
      "    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub previous_title: Option<String>,"
      "    pub warnings: Vec<String>,"
      "    pub changes: Vec<Change$n>,"
      "    pub dry_run: bool,"
    )
    local k
    for ((k = 0; k < fields - 4; k++)); do printf '%b\n' "${extra[k]}"; done
    echo "}"
    if ((fields - 4 >= 5)); then
      cat <<EOF

/// One changed field of update $n.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change$n {
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
}
EOF
    fi
    return
  fi

  if [[ $variant == derived ]] && ((shape < 4)); then
    local templates=(
      "Found {total} entries for {title}"
      "{title}: {total} items"
      "Report {id} scored {score}"
      "{title} ({id}), {total} results, score {score}"
    )
    summary="#[tool_result(summary = \"${templates[shape]}\")]"
  fi
  cat <<EOF

/// Report $n: entries matching the query.
$(attributes "$derive" 'rename_all = "camelCase"' "$summary")
pub struct Result$n {
    /// The report's identifier.
    pub id: String,
    pub title: String,
    /// How many entries matched.
    pub total: u32,
    pub score: f64,
    pub tags: Vec<String>,
EOF
  local more=(
    "    pub owner: Option<String>,"
    "    /// The entries of this page.\n    pub items: Vec<Item$n>,"
    "    /// Seconds since the Unix epoch.\n    pub created_at: Option<u64>,"
    "    pub source: Source$n,"
    "    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub next_cursor: Option<String>,"
  )
  local k
  for ((k = 0; k < fields - 5; k++)); do printf '%b\n' "${more[k]}"; done
  echo "}"
  if ((fields >= 7)); then emit_item "$n"; fi
  if ((fields >= 9)); then
    cat <<EOF

/// Where the entries of report $n come from.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source$n {
    pub system: String,
    pub url: Option<String>,
}
EOF
  fi
}

emit_item() {
  cat <<EOF

/// One entry of $1.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Item$1 {
    pub id: u64,
    pub name: String,
    pub size: Option<u64>,
    pub labels: Vec<String>,
}
EOF
}

generate() {
  cat >"$BENCH/Cargo.toml" <<EOF
# Generated by scripts/compile-time-results.sh; not part of the mcp-result workspace.
[workspace]
members = ["results-derived", "results-plain"]
resolver = "2"
EOF
  # The same dependency versions as the workspace (resolution stays offline).
  cp "$SRC/Cargo.lock" "$BENCH/Cargo.lock"
  local variant crate m i file per=$((TYPES / MODULES))
  for variant in derived plain; do
    crate="$BENCH/results-$variant"
    mkdir -p "$crate/src"
    cat >"$crate/Cargo.toml" <<EOF
[package]
name = "results-$variant"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
mcp-result = { path = "$SRC" }
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
EOF
    {
      echo "//! $TYPES result types, $variant (generated by scripts/compile-time-results.sh)."
      for ((m = 0; m < MODULES; m++)); do printf 'pub mod m%02d;\n' "$m"; done
    } >"$crate/src/lib.rs"
    for ((m = 0; m < MODULES; m++)); do
      file="$crate/src/$(printf 'm%02d' "$m").rs"
      {
        if [[ $variant == derived ]]; then
          echo "use mcp_result::{AuditEventId, Status, ToolResult};"
        else
          echo "use mcp_result::{AuditEventId, Status};"
        fi
        echo "use schemars::JsonSchema;"
        echo "use serde::Serialize;"
        for ((i = m * per; i < (m + 1) * per; i++)); do emit_type "$variant" "$i"; done
      } >"$file"
    done
  done
}

prepare() { # prepare <kind> <crate>
  local file="$BENCH/$2/src/$TOUCHED.rs"
  case $1 in
    touch) touch "$file" ;;
    edit)
      # Toggles `total`'s type in Result$EDITED: u32 <-> u64.
      if grep -q '^    pub total: u32,' <(sed -n "/^pub struct Result$EDITED {/,/^}/p" "$file"); then
        sed -i "/^pub struct Result$EDITED {/,/^}/ s/^    pub total: u32,/    pub total: u64,/" "$file"
      else
        sed -i "/^pub struct Result$EDITED {/,/^}/ s/^    pub total: u64,/    pub total: u32,/" "$file"
      fi
      ;;
  esac
}

kind_label() {
  case $1 in
    clean) echo "clean (generated crate only; deps prebuilt)" ;;
    touch) echo "incremental: one file touched, no change" ;;
    edit) echo "incremental: one type changed" ;;
  esac
}

bench_main "$@"
