// Shared by the JavaScript drivers: read the job tests/clients.rs wrote, run each
// (protocol version, connection) of it, and write a report of what the client returned.
//
// A driver never judges the results: it records, for each planned call, either the result
// exactly as the client library handed it to the application or the error the library
// raised. tests/clients.rs checks the reports, the same way for every client.
import { readFileSync, writeFileSync } from 'node:fs';

/** `node driver.mjs <job.json> <report.json>` */
export function readJob() {
  const [jobPath, reportPath] = process.argv.slice(2);
  if (!jobPath || !reportPath) {
    console.error('usage: driver.mjs <job.json> <report.json>');
    process.exit(2);
  }
  return { job: JSON.parse(readFileSync(jobPath, 'utf8')), reportPath };
}

/** An error as data: class, JSON-RPC code (when it has one) and message. */
export function errorRecord(error) {
  const record = {
    kind: error?.constructor?.name ?? typeof error,
    code: typeof error?.code === 'number' ? error.code : null,
    message: String(error?.message ?? error),
  };
  if (typeof error?.code === 'string') record.cliCode = error.code;
  return record;
}

export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A job is `{ timeoutMs, workDir, runs: [{ key, protocol, connect, command, args, calls }] }`:
 * `connect` is `legacy` (the `initialize` handshake) or `modern` (2026-07-28), `calls` are
 * `[{ id, tool, arguments, meta?, elicit?, cursorFrom? }]`.
 *
 * Runs every job run concurrently (one server process each) with `session(run)`, which
 * connects and returns `{ negotiated, listTools(), callTool(name, args), close() }`.
 */
export async function runJob(job, session) {
  const runs = await Promise.all(job.runs.map((run) => runOne(job, run, session)));
  return { runs };
}

async function runOne(job, run, session) {
  const out = {
    key: run.key,
    protocol: run.protocol,
    connect: run.connect,
    negotiated: null,
    connectError: null,
    listError: null,
    tools: null,
    calls: [],
  };
  const ms = job.timeoutMs;
  let s;
  try {
    s = await withTimeout(session(run), ms, `connect (${run.connect})`);
    out.negotiated = s.negotiated ?? null;
  } catch (error) {
    out.connectError = errorRecord(error);
    return out;
  }
  try {
    try {
      out.tools = await withTimeout(s.listTools(), ms, 'tools/list');
    } catch (error) {
      out.listError = errorRecord(error);
    }
    for (const call of run.calls) {
      // A client that elicits answers as the call says (`elicit`); it notes being asked.
      if (s.elicitation) {
        s.elicitation.answer = call.elicit ?? null;
        s.elicitation.asked = false;
      }
      let args;
      try {
        args = withCursor(call, out.calls);
      } catch (error) {
        out.calls.push({ id: call.id, error: errorRecord(error) });
        continue;
      }
      try {
        const result = await withTimeout(
          s.callTool(call.tool, args, call.meta),
          ms,
          `tools/call ${call.tool}`,
        );
        out.calls.push(
          s.elicitation ? { id: call.id, result, elicited: s.elicitation.asked } : { id: call.id, result },
        );
      } catch (error) {
        out.calls.push({ id: call.id, error: errorRecord(error) });
      }
    }
  } finally {
    await withTimeout(Promise.resolve(s.close()), 5000, 'close').catch(() => {});
  }
  return out;
}

/**
 * The call's arguments; for a call with `cursorFrom` (the next page of a walk), with
 * `cursor` set to the `structuredContent.nextCursor` of that earlier call's recorded result,
 * as this client returned it.
 */
export function withCursor(call, records) {
  if (!call.cursorFrom) return call.arguments;
  const earlier = records.find((r) => r.id === call.cursorFrom);
  const cursor = earlier?.result?.structuredContent?.nextCursor;
  if (typeof cursor !== 'string') {
    throw new Error(`\`${call.cursorFrom}\` returned no nextCursor`);
  }
  return { ...call.arguments, cursor };
}

export function writeReport(reportPath, client, report) {
  writeFileSync(reportPath, JSON.stringify({ client, ...report }, null, 1));
}

/** The installed version of an npm package (from its package.json). */
export function installedVersion(pkg) {
  const url = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}
