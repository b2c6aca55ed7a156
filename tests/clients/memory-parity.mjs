// Driver: the memory server's parity test (tests/memory_parity.rs). The TypeScript SDK v1
// client, `@modelcontextprotocol/sdk`, drives two servers over stdio with the same calls:
// the reference, `@modelcontextprotocol/server-memory` (pinned in package.json), and the
// port, `examples/memory` (argv[2]), each on a file of its own.
//
// Every answer of the port is compared with the reference's. Where they differ, the
// difference must be one of the named ones of examples/memory/DIFFERENCES.md: each
// normaliser below checks that the two answers differ exactly that way (and are otherwise
// the same), and records the name with the first call that showed it. Anything else is a
// mismatch. After every write both graphs are read and compared; at the end the two files
// are compared byte for byte, and each server reads the other's file.
//
// The driver judges but does not decide: it writes its report to argv[3]
// (`{calls: {reference, port}, toolsListBytes, observed: {name: example}, mismatches}`),
// and the Rust test asserts that there is no mismatch and that the names observed are
// exactly the names the document lists.
//
// Each client declares form elicitation and answers it `accept` with `{"approve": true}`
// (the person at the client approves), except where a step says `decline`.
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorRecord, installedVersion } from './lib.mjs';

const [portBinary, reportPath] = process.argv.slice(2);
if (!portBinary || !reportPath) {
  console.error('usage: memory-parity.mjs <examples/memory binary> <report.json>');
  process.exit(2);
}
const MEMORY = '@modelcontextprotocol/server-memory';
const REFERENCE = fileURLToPath(new URL(`./node_modules/${MEMORY}/dist/index.js`, import.meta.url));
const GRAPH_URI = 'memory://knowledge-graph';
const KEY = 'io.github.mcp-result/idempotencyKey';
const TIMEOUT = { timeout: 30_000 };
const WRITES = new Set([
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
]);
const DELETES = new Set(['delete_entities', 'delete_observations', 'delete_relations']);

const report = {
  client: `@modelcontextprotocol/sdk ${installedVersion('@modelcontextprotocol/sdk')}`,
  reference: `${MEMORY} ${installedVersion(MEMORY)}`,
  calls: { reference: 0, port: 0 },
  toolsListBytes: null,
  observed: {},
  mismatches: [],
};

// ---------------------------------------------------------------------------------------
// Comparing: canonical JSON (keys sorted), the record of differences and mismatches
// ---------------------------------------------------------------------------------------

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  }
  return value;
}
const same = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** The named difference `name` showed at `where` (the first example is kept). */
function observe(name, where, reference, port, note) {
  report.observed[name] ??= { where, reference: clone(reference), port: clone(port), note };
}

function mismatch(where, why, reference, port) {
  report.mismatches.push({ where, why, reference: clone(reference), port: clone(port) });
}

// ---------------------------------------------------------------------------------------
// Sessions: one client per server, the raw JSON-RPC answers kept
// ---------------------------------------------------------------------------------------

async function connect(side, file) {
  const [command, args] =
    side === 'reference' ? [process.execPath, [REFERENCE]] : [portBinary, []];
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env, MEMORY_FILE_PATH: file },
    stderr: 'inherit',
  });
  const session = {
    side,
    file,
    last: null,
    initialize: null,
    updates: 0,
    asked: [],
    answer: 'accept',
  };
  // The answers as the server sent them (the SDK hands the application parsed copies).
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('id' in message && !('method' in message)) {
        session.initialize ??= message.result;
        session.last = message;
      }
      deliver?.(message, extra);
    };
    return start();
  };
  const client = new Client(
    { name: 'mcp-result-memory-parity', version: '0.1.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    session.asked.push(request.params.message);
    return session.answer === 'accept'
      ? { action: 'accept', content: { approve: true } }
      : { action: session.answer };
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    if (notification.params.uri === GRAPH_URI) session.updates += 1;
  });
  await client.connect(transport, TIMEOUT);
  session.client = client;
  return session;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Until no notification has come for 20 ms (the port tells its listeners from a task of
 * their own, so a notification may follow the call's answer). */
async function settle(session) {
  let heard = -1;
  for (let i = 0; heard !== session.updates && i < 50; i += 1) {
    heard = session.updates;
    await sleep(20);
  }
}

/** A request's raw answer: `{result}` or `{error}`, and what the SDK threw, if anything. */
async function raw(session, send) {
  session.last = null;
  let thrown = null;
  try {
    await send(session.client);
  } catch (error) {
    thrown = errorRecord(error);
  }
  await settle(session);
  const answer = session.last ?? {};
  return { result: answer.result, error: answer.error, thrown };
}

async function callOne(session, step) {
  const asked = session.asked.length;
  const updates = session.updates;
  session.answer = step.elicit ?? 'accept';
  const params = { name: step.tool, arguments: step.args };
  if (step.key) params._meta = { [KEY]: step.key };
  const answer = await raw(session, (c) => c.callTool(params, undefined, TIMEOUT));
  report.calls[session.side] += 1;
  return { ...answer, asked: session.asked.slice(asked), updates: session.updates - updates };
}

// ---------------------------------------------------------------------------------------
// The normalisers: each named difference, checked to be exactly that
// ---------------------------------------------------------------------------------------

const WRITE_FIELDS = ['status', 'retrySafe', 'auditEventId', 'approvalId'];
const keyed = new Map(); // key -> {args, tool, port: the port's first answer}

/** The reference's text blocks: one, the JSON of the result (2 spaces) or its message. */
function referenceTextIsItsResult(result) {
  const blocks = result.content ?? [];
  if (blocks.length !== 1 || blocks[0].type !== 'text') return false;
  const text = blocks[0].text;
  const sc = result.structuredContent ?? {};
  const values = [sc, ...Object.values(sc)];
  return values.some((v) => JSON.stringify(v, null, 2) === text) || text === sc.message;
}

/** The port's: a summary, then the JSON text of `structuredContent`. */
function portTextIsItsResult(result) {
  const blocks = result.content ?? [];
  if (blocks.length !== 2 || blocks.some((b) => b.type !== 'text')) return false;
  try {
    return same(JSON.parse(blocks[1].text), result.structuredContent) && blocks[0].text.length > 0;
  } catch {
    return false;
  }
}

/** The fields a reference validation error names, as JSON Pointers. */
function zodPointers(text) {
  const prefix = 'MCP error -32602: Input validation error: Invalid arguments for tool ';
  if (!text.startsWith(prefix)) return null;
  const issues = text.slice(text.indexOf(': ', prefix.length) + 2).split('\n');
  return issues.map((issue) => {
    const at = issue.match(/ at (\S+)$/);
    if (!at) return '';
    return '/' + at[1].replace(/\[(\d+)\]/g, '.$1').split('.').join('/');
  });
}

function compareCall(where, step, ref, port) {
  const fail = (why) => mismatch(where, why, ref, port);
  const names = [];
  const saw = (name, note) => {
    names.push(name);
    observe(name, where, ref, port, note);
  };
  if (ref.thrown && ref.result) return fail('the client refused the reference\'s answer');
  if (port.thrown && port.result) return fail('the client refused the port\'s answer');

  // A request the port refuses as JSON-RPC, the reference answering as a tool result.
  if (port.error) {
    const text = ref.result?.content?.[0]?.text;
    if (
      port.error.code === -32602 &&
      ref.result?.isError === true &&
      text === `MCP error -32602: Tool ${step.tool} not found` &&
      port.error.message.includes(step.tool)
    ) {
      saw('unknown-tool');
    } else if (
      port.error.code === -32700 &&
      ref.result?.isError !== true &&
      JSON.stringify(step.args).match(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i) &&
      !WRITES.has(step.tool)
    ) {
      saw('lone-surrogate', 'the arguments hold a lone UTF-16 surrogate');
    } else {
      return fail('the port answered a JSON-RPC error');
    }
    if (port.updates !== 0 || port.asked.length !== 0) fail('the refused call notified or asked');
    return names;
  }
  if (ref.error) return fail('the reference answered a JSON-RPC error');
  const r = clone(ref.result);
  const p = clone(port.result);

  if (r.isError === undefined && p.isError === false) {
    saw('explicit-is-error');
    r.isError = false;
  }
  const refFailed = r.isError === true;
  const portFailed = p.isError === true;
  const previous = step.key ? keyed.get(step.key) : undefined;
  let replayed = false;

  const envelope = p.structuredContent ?? {};
  if (step.corrupt && portFailed && envelope.errorKind === 'internal') {
    // A file the port cannot read whole: refused, the cause logged under the answer's id.
    if (typeof envelope.correlationId !== 'string') return fail('an internal error without its id');
    saw('corrupt-file', refFailed ? 'both fail' : 'the reference reads it its own way');
  } else if (previous && !same(previous.args, step.args)) {
    // The same key with other arguments: the port runs nothing.
    const env = p.structuredContent ?? {};
    if (!(portFailed && env.errorKind === 'conflict' && env.status === 'failed' && !refFailed)) {
      return fail('a key reused with other arguments was not refused `conflict`');
    }
    saw('key-conflict', env.message);
  } else if (previous) {
    // The same key and arguments: the port answers its first answer again, running nothing.
    if (!same(p, previous.port) || refFailed) {
      return fail('a retry with the same key was not the first answer');
    }
    saw('key-replay');
    replayed = true;
  } else if (refFailed !== portFailed) {
    return fail('one failed, the other did not');
  } else if (refFailed) {
    const env = p.structuredContent ?? {};
    const text = r.content?.[0]?.text ?? '';
    const pointers = zodPointers(text);
    if (r.structuredContent !== undefined || r.content.length !== 1) {
      return fail('the reference\'s error is not one text block');
    }
    if (pointers) {
      const theirs = (env.fieldErrors ?? []).map((f) => f.pointer);
      if (env.errorKind !== 'validation_error' || !same([...pointers].sort(), [...theirs].sort())) {
        return fail('the invalid arguments are not the same fields');
      }
      saw('validation-error');
    } else if (
      env.message === text &&
      env.errorKind === 'not_found' &&
      env.status === 'failed' &&
      env.retrySafe === true &&
      typeof env.auditEventId === 'string'
    ) {
      saw('error-envelope');
    } else {
      return fail('the errors differ');
    }
  } else {
    // Both succeeded.
    if (!referenceTextIsItsResult(r) || !portTextIsItsResult(p)) {
      return fail('a text block is not the JSON of its result');
    }
    saw('text-content');
    delete r.content;
    delete p.content;
    const sc = p.structuredContent ?? {};
    if (WRITES.has(step.tool)) {
      const approved = port.asked.length > 0;
      // `retrySafe`: under a key, or for the deletes (declared idempotent, as the reference
      // declares them).
      if (
        sc.status !== 'succeeded' ||
        sc.retrySafe !== (DELETES.has(step.tool) || step.key !== undefined) ||
        typeof sc.auditEventId !== 'string' ||
        (approved && typeof sc.approvalId !== 'string')
      ) {
        return fail('the write fields are missing or wrong');
      }
      for (const k of WRITE_FIELDS) delete sc[k];
      saw('write-fields');
    } else if (WRITE_FIELDS.some((k) => k in sc)) {
      return fail('a read answered write fields');
    }
    if (!same(r, p)) return fail('the results differ');
  }

  if (step.key && !previous) keyed.set(step.key, { args: step.args, port: clone(port.result) });

  // Questions and notifications.
  if (ref.asked.length !== 0) return fail('the reference asked something');
  if (port.asked.length !== 0) {
    if (!DELETES.has(step.tool) || !port.asked[0].startsWith('Approve this write? Delete ')) {
      return fail('the port asked something other than a delete\'s approval');
    }
    saw('delete-approval', port.asked[0]);
  }
  const skipped = replayed || names.includes('key-conflict');
  if (ref.updates !== (skipped ? port.updates + 1 : port.updates)) {
    return fail(`notifications/resources/updated: reference ${ref.updates}, port ${port.updates}`);
  }
  return names;
}

// ---------------------------------------------------------------------------------------
// tools/list, initialize and the resource
// ---------------------------------------------------------------------------------------

function compareInitialize(ref, port) {
  const where = 'initialize';
  const r = clone(ref.initialize);
  const p = clone(port.initialize);
  // Another server's name; the framework's logging; tools that never change.
  const tools = r.capabilities.tools?.listChanged === true && !p.capabilities.tools?.listChanged;
  if (!same(r.serverInfo, p.serverInfo) && 'logging' in p.capabilities && tools) {
    observe('server-info', where, r, p);
    delete p.capabilities.logging;
    delete r.capabilities.tools.listChanged;
    delete r.serverInfo;
    delete p.serverInfo;
  }
  if (!same(r, p)) {
    mismatch(where, 'the initialize answers differ', ref.initialize, port.initialize);
  }
}

function compareTools(refList, portList) {
  const names = (list) => list.tools.map((t) => t.name);
  if (!same(names(refList), names(portList))) {
    return mismatch('tools/list', 'not the same tools in the same order', refList, portList);
  }
  refList.tools.forEach((refTool, i) => {
    const where = `tools/list ${refTool.name}`;
    const r = clone(refTool);
    const p = clone(portList.tools[i]);
    if (r.inputSchema.$schema === 'http://json-schema.org/draft-07/schema#') {
      observe('schema-dialect', where, refTool.inputSchema, portList.tools[i].inputSchema);
      delete r.inputSchema.$schema;
    }
    if (DELETES.has(r.name) && p.inputSchema.properties?.approvalRequestId?.type === 'string') {
      observe('approval-argument', where, refTool.inputSchema, portList.tools[i].inputSchema);
      delete p.inputSchema.properties.approvalRequestId;
    }
    // The port's success branch has the reference's fields, and the write fields besides.
    const success = p.outputSchema?.anyOf?.[0];
    const theirs = Object.keys(r.outputSchema?.properties ?? {});
    const extra = Object.keys(success?.properties ?? {}).filter((k) => !theirs.includes(k));
    const writeOnly = extra.every((k) => WRITE_FIELDS.includes(k));
    if (
      !success ||
      !theirs.every((k) => k in success.properties && success.required.includes(k)) ||
      !writeOnly ||
      (extra.length > 0) !== WRITES.has(r.name)
    ) {
      const why = 'the port\'s outputSchema is not the reference\'s result';
      return mismatch(where, why, refTool, portList.tools[i]);
    }
    observe('output-schema', where, refTool.outputSchema, portList.tools[i].outputSchema);
    delete r.outputSchema;
    delete p.outputSchema;
    if (r.execution?.taskSupport === 'forbidden' && p.execution === undefined) {
      observe('execution-field', where, refTool.execution, portList.tools[i].execution);
      delete r.execution;
    }
    const idempotency = p._meta?.['io.github.mcp-result/idempotency'];
    const keyIn = idempotency?.keyIn ?? [];
    if (WRITES.has(r.name) && keyIn.includes(`_meta/${KEY}`) && r._meta === undefined) {
      observe('idempotency-meta', where, refTool._meta, portList.tools[i]._meta);
      delete p._meta;
    }
    if (!same(r, p)) mismatch(where, 'the tools differ', refTool, portList.tools[i]);
  });
}

// ---------------------------------------------------------------------------------------
// A pair of sessions, one per server
// ---------------------------------------------------------------------------------------

class Pair {
  static async open(phase, refFile, portFile) {
    const pair = new Pair();
    pair.phase = phase;
    pair.ref = await connect('reference', refFile);
    pair.port = await connect('port', portFile);
    pair.step = 0;
    for (const s of [pair.ref, pair.port]) {
      await s.client.subscribeResource({ uri: GRAPH_URI }, TIMEOUT);
    }
    return pair;
  }

  where(step) {
    this.step += 1;
    const args = JSON.stringify(step.args);
    const key = step.key ? ` key ${step.key}` : '';
    return `${this.phase} #${this.step}: ${step.tool} ${args}${key}`;
  }

  /** One call to both; after a write, both graphs read and compared. */
  async call(step) {
    const where = this.where(step);
    const ref = await callOne(this.ref, step);
    const port = await callOne(this.port, step);
    compareCall(where, step, ref, port);
    if (WRITES.has(step.tool)) await this.readBoth(step.corrupt);
    return { ref, port };
  }

  /** A call to the port alone (what the reference has no way to do). */
  async portOnly(step, check) {
    const where = this.where(step);
    const port = await callOne(this.port, step);
    const why = check(port);
    if (why) mismatch(where, why, null, port);
    await this.readBoth();
  }

  /** After a write: both graphs read and compared. */
  async readBoth(corrupt = false) {
    await this.call({ tool: 'read_graph', args: {}, corrupt });
  }

  /** Both graphs, as read_graph answers them (after comparing them). */
  async graphs() {
    const { ref, port } = await this.call({ tool: 'read_graph', args: {} });
    return [ref.result?.structuredContent, port.result?.structuredContent];
  }

  /** The graph as a resource: listed, read (the same text, byte for byte), and a URI that
   * names nothing. */
  async compareResource(corrupt = false) {
    const where = `${this.phase}: resources`;
    const answers = [];
    const nope = 'memory://nothing-here';
    for (const s of [this.ref, this.port]) {
      answers.push({
        list: (await raw(s, (c) => c.listResources(undefined, TIMEOUT))).result,
        templates: (await raw(s, (c) => c.listResourceTemplates(undefined, TIMEOUT))).result,
        read: await raw(s, (c) => c.readResource({ uri: GRAPH_URI }, TIMEOUT)),
        unknown: (await raw(s, (c) => c.readResource({ uri: nope }, TIMEOUT))).error,
      });
    }
    const [r, p] = answers;
    if (!same(r.list, p.list)) mismatch(`${where}/list`, 'resources/list differs', r.list, p.list);
    if (!same(r.templates, p.templates)) {
      const why = 'resources/templates/list differs';
      mismatch(`${where}/templates/list`, why, r.templates, p.templates);
    }
    const refRead = r.read.result !== undefined || r.read.error?.code === -32603;
    if (corrupt && p.read.error?.code === -32603 && refRead) {
      if (!/^Internal error \(correlation id [0-9a-f-]+\)\.$/.test(p.read.error.message)) {
        mismatch(`${where}/read`, 'the port\'s internal error is not its id alone', r.read, p.read);
      }
      observe('corrupt-file', `${where}/read`, r.read, p.read, 'resources/read');
    } else if (!same(r.read.result, p.read.result) || r.read.error || p.read.error) {
      mismatch(`${where}/read`, 'resources/read differs', r.read, p.read);
    }
    const text = `Resource ${nope} not found`;
    if (
      r.unknown?.code === -32602 &&
      r.unknown.message === `MCP error -32602: ${text}` &&
      p.unknown?.code === -32002 &&
      p.unknown.message === text
    ) {
      observe('resource-not-found', `${where}/read ${nope}`, r.unknown, p.unknown);
    } else {
      const why = 'the unknown resource answers differ';
      mismatch(`${where}/read ${nope}`, why, r.unknown, p.unknown);
    }
  }

  async close() {
    await this.ref.client.close();
    await this.port.client.close();
  }
}

// ---------------------------------------------------------------------------------------
// The script
// ---------------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'mcp-result-memory-parity-'));
const refFile = join(dir, 'reference.jsonl');
const portFile = join(dir, 'port.jsonl');

function compareFiles(where, a, b) {
  const [x, y] = [a, b].map((f) => (existsSync(f) ? readFileSync(f) : null));
  if (x === null || y === null || !x.equals(y)) {
    mismatch(where, 'the files differ', x?.toString('utf8') ?? null, y?.toString('utf8') ?? null);
  }
}

const alice = { name: 'Alice', entityType: 'person', observations: ['works at Acme', 'likes tea'] };
const bob = { name: 'Bob', entityType: 'person', observations: [] };
const acme = { name: 'Acme', entityType: 'company', observations: ['founded 1999'] };
const carol = { name: 'Carol', entityType: 'person', observations: ['new'] };
const worksAt = { from: 'Alice', to: 'Acme', relationType: 'works_at' };
const bobKnows = { from: 'Bob', to: 'Alice', relationType: 'knows' };
const aliceKnows = { from: 'Alice', to: 'Bob', relationType: 'knows' };
const odd = {
  name: 'Zoë "quoted" \\ back\nslash',
  entityType: 'tab\there',
  observations: [
    'emoji 😀',
    '\u0001 control \u007f',
    '\u2028 line separator',
    '</script> & \u00e9',
  ],
};

{
  const pair = await Pair.open('main', refFile, portFile);
  compareInitialize(pair.ref, pair.port);
  const lists = [];
  for (const s of [pair.ref, pair.port]) {
    lists.push((await raw(s, (c) => c.listTools(undefined, TIMEOUT))).result);
  }
  report.toolsListBytes = {
    reference: Buffer.byteLength(JSON.stringify(lists[0])),
    port: Buffer.byteLength(JSON.stringify(lists[1])),
  };
  compareTools(lists[0], lists[1]);
  await pair.compareResource();

  // Nothing yet: reading writes no file.
  await pair.call({ tool: 'read_graph', args: {} });
  await pair.call({ tool: 'search_nodes', args: { query: 'anything' } });
  if (existsSync(refFile) || existsSync(portFile)) {
    const written = [existsSync(refFile), existsSync(portFile)];
    mismatch('main: before any write', 'a read wrote the file', ...written);
  }

  // Creating: duplicates by name are skipped, duplicates within one call are not.
  await pair.call({ tool: 'create_entities', args: { entities: [alice, bob, acme] } });
  await pair.call({
    tool: 'create_entities',
    args: { entities: [{ ...alice, entityType: 'robot' }, carol, carol] },
  });
  await pair.call({
    tool: 'create_relations',
    args: { relations: [worksAt, bobKnows, aliceKnows, worksAt] },
  });
  await pair.call({
    tool: 'create_relations',
    args: { relations: [worksAt, { from: 'Dave', to: 'Alice', relationType: 'knows' }] },
  });

  // Observations: new ones only, to the first entity of the name; a missing entity fails
  // the whole call, writing nothing.
  await pair.call({
    tool: 'add_observations',
    args: {
      observations: [
        { entityName: 'Alice', contents: ['likes tea', 'likes coffee', 'likes coffee'] },
        { entityName: 'Bob', contents: ['plays chess'] },
        { entityName: 'Alice', contents: ['likes coffee', 'reads'] },
      ],
    },
  });
  await pair.call({
    tool: 'add_observations',
    args: {
      observations: [
        { entityName: 'Bob', contents: ['never written'] },
        { entityName: 'Nobody', contents: ['x'] },
      ],
    },
  });
  await pair.call({
    tool: 'add_observations',
    args: { observations: [{ entityName: 'Carol', contents: ['only the first Carol'] }] },
  });

  // Reading.
  await pair.call({ tool: 'search_nodes', args: { query: 'ALICE' } });
  await pair.call({ tool: 'search_nodes', args: { query: 'coffee' } });
  await pair.call({ tool: 'search_nodes', args: { query: 'company' } });
  await pair.call({ tool: 'search_nodes', args: { query: '' } });
  await pair.call({ tool: 'open_nodes', args: { names: ['Alice', 'Nobody'] } });
  await pair.call({ tool: 'open_nodes', args: { names: [] } });

  // Deleting: what exists goes (a person approves it on the port); what does not is no
  // error, and asks nobody.
  await pair.call({
    tool: 'delete_observations',
    args: {
      deletions: [
        { entityName: 'Alice', observations: ['likes coffee', 'not there'] },
        { entityName: 'Nobody', observations: ['x'] },
      ],
    },
  });
  await pair.call({
    tool: 'delete_observations',
    args: { deletions: [{ entityName: 'Alice', observations: ['not there'] }] },
  });
  await pair.call({
    tool: 'delete_relations',
    args: { relations: [bobKnows, { from: 'Nobody', to: 'Alice', relationType: 'knows' }] },
  });
  await pair.call({ tool: 'delete_relations', args: { relations: [bobKnows] } });
  // Deleting an entity takes its relations with it.
  await pair.call({ tool: 'delete_entities', args: { entityNames: ['Bob', 'Nobody'] } });
  await pair.call({ tool: 'delete_entities', args: { entityNames: ['Nobody'] } });
  await pair.call({ tool: 'delete_entities', args: { entityNames: ['Carol'] } });
  // A delete the person declines deletes nothing on the port; the reference never asks.
  await pair.portOnly(
    { tool: 'delete_entities', args: { entityNames: ['Acme'] }, elicit: 'decline' },
    (port) => {
      const env = port.result?.structuredContent ?? {};
      const blocked = env.status === 'blocked' && env.errorKind === 'policy_blocked';
      if (port.asked.length !== 1 || !blocked) {
        return 'a declined delete was not blocked';
      }
      observe('delete-approval', 'main: a declined delete', null, port, port.asked[0]);
      return null;
    },
  );

  // Idempotency keys: a retry gets the first answer; a key with other arguments is refused.
  const eve = { name: 'Eve', entityType: 'person', observations: [] };
  await pair.call({ tool: 'create_entities', args: { entities: [eve] }, key: 'eve-1' });
  await pair.call({ tool: 'create_entities', args: { entities: [eve] }, key: 'eve-1' });
  await pair.call({ tool: 'create_entities', args: { entities: [eve, eve] }, key: 'eve-1' });
  await pair.call({ tool: 'delete_relations', args: { relations: [worksAt] }, key: 'works-1' });
  await pair.call({ tool: 'delete_relations', args: { relations: [worksAt] }, key: 'works-1' });

  // Arguments of the wrong shape: wrong types, missing and extra fields.
  await pair.call({ tool: 'create_entities', args: { entities: 'Alice' } });
  await pair.call({ tool: 'create_entities', args: { entities: [{ name: 1 }] } });
  await pair.call({ tool: 'create_relations', args: { relations: [{ from: 'Alice' }] } });
  await pair.call({ tool: 'add_observations', args: {} });
  await pair.call({
    tool: 'delete_observations',
    args: { deletions: [{ entityName: 'Alice', observations: 'likes tea' }] },
  });
  await pair.call({ tool: 'search_nodes', args: { query: 5 } });
  await pair.call({ tool: 'open_nodes', args: { names: 'Alice' } });
  await pair.call({
    tool: 'create_entities',
    args: {
      entities: [{ name: 'Gus', entityType: 'cat', observations: ['purrs'], extra: 1 }],
      ignored: true,
    },
  });
  await pair.call({ tool: 'forget_everything', args: {} });
  await pair.call({ tool: 'search_nodes', args: { query: 'lone \ud800 surrogate' } });

  // Text that JSON escapes, and case folding beyond ASCII.
  await pair.call({ tool: 'create_entities', args: { entities: [odd] } });
  await pair.call({
    tool: 'create_relations',
    args: { relations: [{ from: odd.name, to: 'Alice', relationType: 'écrit à' }] },
  });
  await pair.call({ tool: 'search_nodes', args: { query: 'ZOË' } });
  await pair.call({ tool: 'open_nodes', args: { names: [odd.name, 'Gus'] } });

  await pair.compareResource();
  // Unsubscribed, a write notifies nobody.
  for (const s of [pair.ref, pair.port]) {
    await s.client.unsubscribeResource({ uri: GRAPH_URI }, TIMEOUT);
  }
  const unsubscribed = await pair.call({
    tool: 'add_observations',
    args: { observations: [{ entityName: 'Gus', contents: ['naps'] }] },
  });
  if (unsubscribed.ref.updates !== 0 || unsubscribed.port.updates !== 0) {
    mismatch('main: unsubscribed', 'a write notified', unsubscribed.ref, unsubscribed.port);
  }
  const graphs = await pair.graphs();
  await pair.close();
  compareFiles('main: the files after the same calls', refFile, portFile);

  // Each server reads the other's file.
  const swapped = await Pair.open('swapped', portFile, refFile);
  const [refReads, portReads] = await swapped.graphs();
  if (!same(refReads, graphs[0]) || !same(portReads, graphs[1])) {
    const why = 'a server reads the other\'s file differently';
    mismatch('swapped: read_graph', why, refReads, portReads);
  }
  await swapped.compareResource();
  await swapped.close();
  compareFiles('swapped: the files after reading', refFile, portFile);
}

// A file written by hand: CRLF, blank lines, unknown items and fields; both read it the
// same, and write it back the same.
{
  const text =
    '{"type":"entity","name":"A","entityType":"t","observations":["o"],"extra":1}\r\n' +
    '\n   \n\u00a0\n' +
    '{"type":"note","text":"skipped"}\n5\n"text"\n[1]\n' +
    '{"name":"B","type":"entity","entityType":"u","observations":[],"name":"B2"}\n' +
    '{"type":"relation","from":"A","to":"B","relationType":"r"}\n';
  const [a, b] = [join(dir, 'hand-reference.jsonl'), join(dir, 'hand-port.jsonl')];
  writeFileSync(a, text);
  copyFileSync(a, b);
  const pair = await Pair.open('handmade', a, b);
  await pair.call({ tool: 'read_graph', args: {} });
  await pair.call({ tool: 'search_nodes', args: { query: 'b2' } });
  await pair.call({ tool: 'create_entities', args: { entities: [] } });
  await pair.close();
  compareFiles('handmade: written back', a, b);
}

// Files the port cannot read whole. A line that is not JSON: both fail, and a write writes
// nothing. An entity without its type, bytes that are no UTF-8: the port refuses to read
// them (the reference reads them its own way); only reads are made.
for (const [phase, bytes, write] of [
  [
    'corrupt',
    Buffer.from('{"type":"entity","name":"A","entityType":"t","observations":[]}\nnot json\n'),
    true,
  ],
  ['partial', Buffer.from('{"type":"entity","name":"A"}\n'), false],
  [
    'latin-1',
    Buffer.from('{"type":"entity","name":"Zo\xeb","entityType":"t","observations":[]}', 'latin1'),
    false,
  ],
]) {
  const [a, b] = [join(dir, `${phase}-reference.jsonl`), join(dir, `${phase}-port.jsonl`)];
  writeFileSync(a, bytes);
  copyFileSync(a, b);
  const pair = await Pair.open(phase, a, b);
  await pair.call({ tool: 'read_graph', args: {}, corrupt: true });
  await pair.compareResource(true);
  if (write) {
    await pair.call({ tool: 'create_entities', args: { entities: [carol] }, corrupt: true });
  }
  await pair.close();
  for (const file of [a, b]) {
    const now = readFileSync(file);
    if (!now.equals(bytes)) {
      mismatch(phase, `${file} was written`, bytes.toString(), now.toString());
    }
  }
}

rmSync(dir, { recursive: true, force: true });
writeFileSync(reportPath, JSON.stringify(report, null, 1));
process.exit(0);
