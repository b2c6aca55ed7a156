#!/usr/bin/env node
// A stdio pass-through between an MCP client and a server that rewrites one field: the
// `protocolVersion` the client offers in its `initialize` request.
//
//   node pin-version.mjs 2025-06-18 <server> [server args...]
//
// For clients that offer only their newest handshake version (2025-11-25) and have no
// option to offer another: the server answers the version it is offered when it supports
// it, so the session then runs at the pinned version, which the client also supports (it is
// in its SUPPORTED_PROTOCOL_VERSIONS list). Every other byte passes through unchanged; the
// server's stderr is inherited.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [version, command, ...args] = process.argv.slice(2);
if (!version || !command) {
  console.error('usage: pin-version.mjs <protocolVersion> <server> [args...]');
  process.exit(2);
}

const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
server.on('error', (error) => {
  console.error(`pin-version: cannot start ${command}: ${error.message}`);
  process.exit(1);
});
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
server.stdout.pipe(process.stdout);
// Either side may go away first (a client closing, a server exiting): not an error here.
server.stdin.on('error', () => {});
process.stdout.on('error', () => {});

let pinned = false;
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (!pinned) {
    try {
      const message = JSON.parse(line);
      if (message && message.method === 'initialize' && message.params) {
        message.params.protocolVersion = version;
        line = JSON.stringify(message);
        pinned = true;
      }
    } catch {
      // Not JSON: pass it through and let the server answer it.
    }
  }
  server.stdin.write(line + '\n');
});
lines.on('close', () => server.stdin.end());
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => server.kill(signal));
}
