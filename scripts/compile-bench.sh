# Helpers shared by the compile-time scripts (scripts/compile-time.sh,
# scripts/compile-time-results.sh): sourced, not run. See BENCHMARKS.md.
#
# A script generates a small workspace of two library crates under $BENCH (its own target
# dir, $BENCH/target) and measures them against each other in the same run: the
# dependencies are built first and not timed; then, ROUNDS times, alternating which crate
# goes first, every build kind of KINDS for both crates. Each build is timed as wall-clock
# seconds and as cpu seconds (user + sys of cargo and the rustc it runs: less affected than
# wall time by other processes on a shared machine). The report is the median of each time
# and the median of the per-round ratios CRATES[0] / CRATES[1] with their range.
#
# The caller sets, then runs `bench_main`:
#   BENCH     the generated workspace's directory (under target/, never committed)
#   CRATES    the two crates; ratios are CRATES[0] / CRATES[1]
#   COLUMNS   their column titles; RATIO the ratio's title
#   KINDS     the build kinds of a round, in order (`clean` is built in: `cargo clean -p`)
#   TARGET    the ratio to meet (median of the per-round ratios)
#   SUBJECT   what is compiled, for the caption
# and defines:
#   generate                 writes $BENCH: Cargo.toml and both crates; the mcp-result
#                            source to depend on is $SRC, its Cargo.lock $SRC/Cargo.lock
#   prepare <kind> <crate>   the change before a timed build of a kind other than `clean`
#   kind_label <kind>        the kind's row label
#
# Environment: ROUNDS (default 5), PROFILE (default dev), REV (measure that commit of this
# repository, extracted with `git archive` into $BENCH-src/, instead of the working tree;
# REV=worktree: a copy of the working tree's files (git's, uncommitted ones included), so that edits made during the
# run do not rebuild mcp-result inside a timed build), KEEP=1 (keep $BENCH, dependencies built,
# for the next run; by default it is removed at the end).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-5}"
PROFILE="${PROFILE:-dev}"
REV="${REV:-}"
KEEP="${KEEP:-0}"
CARGO=(cargo build --offline --quiet --profile "$PROFILE")
# The incremental builds measure incremental compilation: on whatever the caller's
# environment says (CARGO_INCREMENTAL=0 is common on CI and shared machines).
export CARGO_INCREMENTAL=1

seconds() { date +%s.%N; }

load_average() { cut -d' ' -f1 /proc/loadavg; }

# Where the generated crates find mcp-result: the working tree, or commit $REV of it.
bench_source() {
  if [[ -z $REV ]]; then
    SRC="$ROOT"
    SOURCE_NOTE="the working tree at $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ' with uncommitted changes')"
    return
  fi
  local commit
  commit=$(git -C "$ROOT" rev-parse --short "$(if [[ $REV == worktree ]]; then echo HEAD; else echo "$REV"; fi)^{commit}")
  # Outside $BENCH: a workspace of its own may not sit inside the generated one.
  if [[ $REV == worktree ]]; then
    SRC="$BENCH-src/worktree-$commit"
    rm -rf "$SRC"
    mkdir -p "$SRC"
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -c 2>/dev/null) | tar -x -C "$SRC"
    SOURCE_NOTE="a copy of the working tree at $commit$(git -C "$ROOT" diff --quiet HEAD || echo ' with uncommitted changes')"
    return
  fi
  SRC="$BENCH-src/$commit"
  SOURCE_NOTE="commit $commit"
  if [[ ! -d $SRC ]]; then
    mkdir -p "$SRC"
    git -C "$ROOT" archive --format=tar "$commit" | tar -x -C "$SRC"
  fi
}

# time_build <crate>: prints "<wall seconds> <cpu seconds>" of one build (cpu: user + sys of
# cargo and every rustc it ran; steadier than wall time on a shared machine).
time_build() {
  local TIMEFORMAT='%R %U %S'
  { time (cd "$BENCH" && "${CARGO[@]}" -p "$1" 2>>"$BENCH/build.log"); } 2>&1 | tail -1 |
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
}

measure() { # measure <kind> <crate>
  if [[ $1 == clean ]]; then
    (cd "$BENCH" && cargo clean --offline --quiet --profile "$PROFILE" -p "$2")
  else
    prepare "$1" "$2"
  fi
  time_build "$2"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# column <kind> <crate> <field>: that build's times over the rounds, one a line (field 1:
# wall, 2: cpu).
column() {
  local round
  for ((round = 1; round <= ROUNDS; round++)); do
    echo "${times[$1/$2/$round]}" | cut -d' ' -f"$3"
  done
}

# ratios <kind> <field>: the per-round ratios CRATES[0] / CRATES[1], in round order.
ratios() {
  paste <(column "$1" "${CRATES[0]}" "$2") <(column "$1" "${CRATES[1]}" "$2") |
    awk '{ printf "%.4f\n", $1 / $2 }'
}

run_rounds() {
  declare -gA times=() loads=()
  local round kind crate order
  for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2)); then order="${CRATES[0]} ${CRATES[1]}"; else order="${CRATES[1]} ${CRATES[0]}"; fi
    loads[$round]=$(load_average)
    for kind in "${KINDS[@]}"; do
      for crate in $order; do
        times[$kind/$crate/$round]=$(measure "$kind" "$crate")
        printf '  round %d  %-11s %-17s wall %6.2f s  cpu %6.2f s\n' "$round" "$kind" "$crate" \
          ${times[$kind/$crate/$round]} >&2
      done
    done
  done
}

# The summary table: medians and the median of the per-round ratios (range).
report() {
  echo "| build | time | ${COLUMNS[0]} | ${COLUMNS[1]} | $RATIO: median of rounds (range) | target ≤ $TARGET |"
  echo "|---|---|---|---|---|---|"
  local kind field name a b sorted mid
  for kind in "${KINDS[@]}"; do
    for field in 1 2; do
      if ((field == 1)); then name=wall; else name="cpu (user+sys)"; fi
      a=$(column "$kind" "${CRATES[0]}" "$field" | median)
      b=$(column "$kind" "${CRATES[1]}" "$field" | median)
      sorted=$(ratios "$kind" "$field" | sort -g)
      mid=$(echo "$sorted" | median)
      printf '| %s | %s | %.2f s | %.2f s | %.2f× (%.2f–%.2f) | %s |\n' "$(kind_label "$kind")" "$name" \
        "$a" "$b" "$mid" "$(echo "$sorted" | head -1)" "$(echo "$sorted" | tail -1)" \
        "$(awk -v x="$mid" -v t="$TARGET" 'BEGIN { print (x <= t) ? "met" : "**missed**" }')"
    done
  done
}

# Every round: both times of both crates and their ratios, and the 1-minute load average
# when the round started.
report_rounds() {
  echo "| round (first) | load | build | wall: ${COLUMNS[0]} / ${COLUMNS[1]} | ratio | cpu: ${COLUMNS[0]} / ${COLUMNS[1]} | ratio |"
  echo "|---|---|---|---|---|---|---|"
  local round kind first a b
  for ((round = 1; round <= ROUNDS; round++)); do
    if ((round % 2)); then first=${CRATES[0]}; else first=${CRATES[1]}; fi
    for kind in "${KINDS[@]}"; do
      read -r -a a <<<"${times[$kind/${CRATES[0]}/$round]}"
      read -r -a b <<<"${times[$kind/${CRATES[1]}/$round]}"
      printf '| %d (%s) | %s | %s | %.2f s / %.2f s | %.2f× | %.2f s / %.2f s | %.2f× |\n' "$round" "$first" \
        "${loads[$round]}" "$kind" "${a[0]}" "${b[0]}" "$(awk -v x="${a[0]}" -v y="${b[0]}" 'BEGIN { print x / y }')" \
        "${a[1]}" "${b[1]}" "$(awk -v x="${a[1]}" -v y="${b[1]}" 'BEGIN { print x / y }')"
    done
  done
}

bench_main() {
  local started
  started=$(seconds)
  if [[ $KEEP != 1 ]]; then trap 'rm -rf "$BENCH" "$BENCH-src"' EXIT; fi
  mkdir -p "$BENCH"
  bench_source
  export CARGO_TARGET_DIR="$BENCH/target"
  echo "Generating $SUBJECT under ${BENCH#"$ROOT"/} ..." >&2
  rm -rf "${CRATES[@]/#/$BENCH/}" "$BENCH/build.log"
  generate
  # Each crate on its own, as it is measured: built together, cargo would unify the features
  # of shared dependencies and then rebuild them for the first lone build.
  echo "Building the dependencies (not timed; the first run builds them all) ..." >&2
  (cd "$BENCH" && "${CARGO[@]}" -p "${CRATES[0]}" && "${CARGO[@]}" -p "${CRATES[1]}")
  local load_before
  load_before=$(load_average)
  run_rounds

  echo
  echo "Compile time of $SUBJECT, profile \`$PROFILE\`, $ROUNDS rounds ($(nproc) cores, $(rustc --version))," \
    "mcp-result: $SOURCE_NOTE," \
    "load average $load_before at the first round, $(load_average) at the end"
  echo
  report
  echo
  report_rounds
  echo
  printf 'Total script time: %.0f s\n' "$(awk -v a="$started" -v b="$(seconds)" 'BEGIN { print b - a }')"
}
