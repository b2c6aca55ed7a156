#!/usr/bin/env bash
# Instructions per `tools/call`, end to end in the server process (callgrind), for the
# servers of `benches/end_to_end.rs`: plain rmcp, and mcp-result (tracing audit sink) served
# by `serve_stdio` and, the transport held equal, on rmcp's `stdio_pipes()` as plain rmcp is;
# a read-only tool (`get_ticket`) and a write (`add_note`). Then the same two servers over
# streamable HTTP (stateless, JSON responses), and a keyed write whose string argument is
# 1 MiB, on rmcp's `stdio_pipes()`, counted and also timed natively (the time of N calls minus
# one call, the best of five runs each, the two servers run in turn).
#
#   scripts/call-cost.sh            # builds the bench in release, prints the tables
#   CALLS=4000 scripts/call-cost.sh
#   FEATURES=sqlite,opentelemetry scripts/call-cost.sh
#   SECTIONS=stdio scripts/call-cost.sh   # any of: stdio http large
#
# Each server reads `initialize`, `notifications/initialized` and N calls from stdin (written
# to a file first, then piped), then stdin closes and it drains. A run with N calls minus a
# run with 1 call, divided by N − 1, is the cost of one call without startup and first-call
# setup (BENCHMARKS.md, "Cost per call"). Instruction counts do not move with the machine's
# load. Over HTTP the client is the bench binary in another process (role `http-client`,
# one call at a time on one kept-alive connection), not counted; the server stops when its
# stdin closes.
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${CALLS:-2000}
large_calls=${LARGE_CALLS:-11}
wall_calls=${WALL_CALLS:-101}
sections=${SECTIONS:-stdio http large}
features=${FEATURES:-sqlite}

# The bench binary cargo built for `$1` (features), by its own account: not the newest file
# of target/, which another build may have written.
build() {
  cargo bench --features "$1" --bench end_to_end --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*end_to_end[^"]*"' | tail -1 | sed 's/^"executable":"//; s/"$//'
}
bin=$(build "$features")
case " $sections " in *" http "*) http_bin=$(build "$features,http") ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

feed() { # tool count [arguments] [meta: "keyed"]
  local args=${3:-} meta=""
  if [ -z "$args" ]; then
    if [ "$1" = get_ticket ]; then args='{"ticketId":"T-1001"}'; else args='{"ticketId":"T-1001","body":"Checked the logs."}'; fi
  fi
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  for ((i = 1; i <= $2; i++)); do
    # A keyed write: a new idempotency key each call (a repeated one is a replay).
    [ "${4:-}" = keyed ] && meta=",\"_meta\":{\"io.github.mcp-result/idempotencyKey\":\"cost-$i\"}"
    printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s%s}}\n' \
      "$i" "$1" "$args" "$meta"
  done
}

ir() { # role tool count [arguments] [keyed]
  feed "$2" "$3" "${4:-}" "${5:-}" >"$work/feed"
  cat "$work/feed" | E2E_ROLE=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 >/dev/null |
    grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'
}

http_ir() { # role tool count
  rm -f "$work/in" "$work/port"
  mkfifo "$work/in"
  E2E_ROLE=http-$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$http_bin" \
    <"$work/in" >"$work/port" 2>"$work/server" &
  local server=$! keep
  exec {keep}>"$work/in" # the server's stdin, open until the client is done
  until [ -s "$work/port" ]; do sleep 0.2; done
  E2E_ROLE=http-client E2E_PORT=$(head -1 "$work/port") E2E_TOOL=$2 E2E_CALLS=$3 "$http_bin"
  exec {keep}>&-
  wait "$server"
  grep -o 'Collected : [0-9]*' "$work/server" | grep -o '[0-9]*$'
}

wall() { # arguments count: the least of five runs' nanoseconds of plain rmcp and of
  # mcp-result, their runs interleaved (a change in the machine's speed meets both)
  feed add_note "$2" "$1" keyed >"$work/feed"
  local best_rmcp="" best_ours="" start took role
  for _ in 1 2 3 4 5; do
    for role in rmcp same-transport; do
      start=$(date +%s%N)
      E2E_ROLE=$role "$bin" <"$work/feed" >/dev/null 2>&1
      took=$(($(date +%s%N) - start))
      if [ "$role" = rmcp ]; then
        if [ -z "$best_rmcp" ] || [ "$took" -lt "$best_rmcp" ]; then best_rmcp=$took; fi
      elif [ -z "$best_ours" ] || [ "$took" -lt "$best_ours" ]; then best_ours=$took; fi
    done
  done
  echo "$best_rmcp $best_ours"
}

per_call() { # one many count
  echo $(( ($2 - $1) / ($3 - 1) ))
}

ratio() { printf "%.2f" "$(echo "scale=4; $1 / $2" | bc)"; }

# A table's rows: each role measured with `count` calls and with one, per call, against the
# first role's. `measure role count` gives the total instructions; `tool`, `args` and
# `keyed` are read by the measures.
rows() { # label count measure role=name...
  local label=$1 count=$2 measure=$3 base="" per pair
  shift 3
  for pair in "$@"; do
    per=$(per_call "$("$measure" "${pair%%=*}" 1)" "$("$measure" "${pair%%=*}" "$count")" "$count")
    [ -z "$base" ] && base=$per
    printf '| %s | %s | %s | %s× |\n' "$label" "${pair#*=}" "$per" "$(ratio "$per" "$base")"
  done
}
on_stdio() { ir "$1" "$tool" "$2" "${args:-}" "${keyed:-}"; }
on_http() { http_ir "$1" "$tool" "$2"; }
header() { printf '| tool | server | %s | vs rmcp |\n|---|---|---|---|\n' "$1"; }

if [[ " $sections " == *" stdio "* ]]; then
  header "instructions per call"
  for tool in get_ticket add_note; do
    rows "$tool" "$calls" on_stdio "rmcp=plain rmcp" "tracing=mcp-result (serve_stdio)" \
      "same-transport=mcp-result (rmcp's stdio_pipes, as plain rmcp)"
  done
fi

if [[ " $sections " == *" http "* ]]; then
  printf '\nStreamable HTTP, stateless, JSON responses (rmcp'"'"'s StreamableHttpService, NeverSessionManager), both under axum::serve:\n\n'
  header "instructions per call"
  for tool in get_ticket add_note; do
    rows "$tool" "$calls" on_http "rmcp=plain rmcp (StreamableHttpService)" \
      "mcp-result=mcp-result (http::router: the same service behind its edge)"
  done
fi

if [[ " $sections " == *" large "* ]]; then
  # `body` of 1 MiB (1,048,576 ASCII letters); each call with an idempotency key of its own.
  body=$(head -c 1048576 /dev/zero | tr '\0' 'a')
  tool=add_note args="{\"ticketId\":\"T-1001\",\"body\":\"$body\"}" keyed=keyed
  printf '\nA keyed write whose `body` is 1 MiB, on rmcp'"'"'s stdio_pipes (%d calls − 1):\n\n' "$large_calls"
  header "instructions per call"
  rows "add_note, 1 MiB" "$large_calls" on_stdio "rmcp=plain rmcp" \
    "same-transport=mcp-result (rmcp's stdio_pipes, keyed)"
  # Under callgrind SHA-256 runs in software (valgrind offers no SHA extensions), as it
  # does on a CPU without them; on this machine's CPU it does not: the same calls' time
  # in release, the best of five runs of each count.
  printf '\nThe same calls timed, natively (best of 5, the two servers in turn; %d calls − 1):\n\n' "$wall_calls"
  header "ms per call"
  read -r many_rmcp many_ours <<<"$(wall "$args" "$wall_calls")"
  read -r one_rmcp one_ours <<<"$(wall "$args" 1)"
  plain=$(per_call "$one_rmcp" "$many_rmcp" "$wall_calls")
  ours=$(per_call "$one_ours" "$many_ours" "$wall_calls")
  for pair in "plain rmcp=$plain" "mcp-result (rmcp's stdio_pipes, keyed)=$ours"; do
    printf '| add_note, 1 MiB | %s | %s | %s× |\n' "${pair%%=*}" \
      "$(echo "scale=3; ${pair#*=} / 1000000" | bc)" "$(ratio "${pair#*=}" "$plain")"
  done
fi
