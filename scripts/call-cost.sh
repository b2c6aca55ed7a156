#!/usr/bin/env bash
# Instructions per `tools/call`, end to end in the server process (callgrind), for the
# servers of `benches/end_to_end.rs`: plain rmcp, and mcp-result (tracing audit sink) served
# by `serve_stdio` and, the transport held equal, on rmcp's `stdio_pipes()` as plain rmcp is;
# a read-only tool (`get_ticket`) and a write (`add_note`).
#
#   scripts/call-cost.sh            # builds the bench in release, prints a table
#   CALLS=4000 scripts/call-cost.sh
#   FEATURES=sqlite,opentelemetry scripts/call-cost.sh
#
# Each server reads `initialize`, `notifications/initialized` and N calls from stdin, then
# stdin closes and it drains. A run with N calls minus a run with 1 call, divided by N − 1,
# is the cost of one call without startup and first-call setup (BENCHMARKS.md, "Cost per
# call"). Instruction counts do not move with the machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${CALLS:-2000}
# FEATURES=sqlite,opentelemetry: the same with the trace continuation compiled in.
cargo bench --features "${FEATURES:-sqlite}" --bench end_to_end --no-run 2>/dev/null
bin=$(ls -t target/release/deps/end_to_end-* | grep -v '\.d$' | head -1)

feed() { # tool count
  local args
  if [ "$1" = get_ticket ]; then args='{"ticketId":"T-1001"}'; else args='{"ticketId":"T-1001","body":"Checked the logs."}'; fi
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  for ((i = 1; i <= $2; i++)); do
    echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$args}}"
  done
}

ir() { # role tool count
  feed "$2" "$3" | E2E_ROLE=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 >/dev/null |
    grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'
}

printf '| tool | server | instructions per call | vs rmcp |\n|---|---|---|---|\n'
for tool in get_ticket add_note; do
  base=""
  for role in rmcp tracing same-transport; do
    one=$(ir "$role" "$tool" 1)
    many=$(ir "$role" "$tool" "$calls")
    per=$(( (many - one) / (calls - 1) ))
    [ -z "$base" ] && base=$per
    case $role in
      rmcp) name="plain rmcp" ;;
      tracing) name="mcp-result (serve_stdio)" ;;
      *) name="mcp-result (rmcp's stdio_pipes, as plain rmcp)" ;;
    esac
    printf '| %s | %s | %d | %s× |\n' "$tool" "$name" "$per" "$(echo "scale=2; $per / $base" | bc)"
  done
done
