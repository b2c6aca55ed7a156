// Driver: the TypeScript SDK v2 client (`@modelcontextprotocol/client`) holding a
// `subscriptions/listen` stream (MCP 2026-07-28, SEP-2575) for tests/subscriptions.rs.
//
// argv[2] is the connection, as JSON: {"stdio": {"command", "args", "env"}} or
// {"http": {"url", "token"}}; the client pins 2026-07-28 (with `"legacy": true`, it offers
// 2025-11-25 in `initialize` instead) and declares the tasks extension
// (`io.modelcontextprotocol/tasks`) and no elicitation. Each line of stdin is one command,
// each line of stdout its answer (JSON):
//
//   {"call": [name, arguments]}     -> {"result": <the tools/call result, raw>} (sent on the
//                                      SDK's transport with the SDK's `_meta`, so that a
//                                      CreateTaskResult, which the SDK leaves to its Tasks
//                                      package, reaches the test as sent)
//   {"listen": <filter>}            -> {"acknowledged": <the acknowledgement's params, raw>}
//   {"subscribe": uri}              -> {"subscribed": true} or {"error": <code and message>}
//                                      (`resources/subscribe`, before 2026-07-28)
//   {"wait": [method, count, ms]}   -> {"received": [<the first `count` notifications of
//                                       `method` since the listen, raw>]}, or
//                                      {"timeout": [<those that came>]} after `ms`
//   {"close": true}                 -> {"closed": <how the stream ended>}
//
// Messages are read raw, under the SDK (its transport's `onmessage`), so what the test
// asserts is what the server sent.
import { createInterface } from 'node:readline';
import {
  Client,
  StreamableHTTPClientTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const say = (line) =>
  new Promise((done) => process.stdout.write(`${JSON.stringify(line)}\n`, done));

const connection = JSON.parse(process.argv[2]);
const transport = connection.stdio
  ? new StdioClientTransport({
      command: connection.stdio.command,
      args: connection.stdio.args ?? [],
      env: { ...process.env, ...(connection.stdio.env ?? {}) },
      stderr: 'inherit',
    })
  : new StreamableHTTPClientTransport(new URL(connection.http.url), {
      requestInit: connection.http.token
        ? { headers: { authorization: `Bearer ${connection.http.token}` } }
        : undefined,
    });
const client = new Client(
  { name: 'mcp-result-listen', version: '0.1.0' },
  {
    ...(connection.legacy
      ? {
          supportedProtocolVersions: [
            '2025-11-25',
            ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== '2025-11-25'),
          ],
        }
      : { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  },
);
// The SDK dispatches stream notifications to handlers; these are read raw below.
client.fallbackNotificationHandler = async () => {};
await client.connect(transport, { timeout: 60_000 });

const received = [];
const answers = new Map();
let waiter = null;
const raw = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method && message.id === undefined) {
    received.push(message);
    waiter?.();
  }
  if (message.id !== undefined && answers.has(message.id)) {
    answers.get(message.id)(message);
    answers.delete(message.id);
    return;
  }
  raw.call(transport, message, extra);
};

let calls = 0;
async function callRaw(name, args) {
  const id = `call:${calls++}`;
  const answered = new Promise((done) => answers.set(id, done));
  const meta = client._outboundMetaEnvelope();
  await transport.send({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  });
  const answer = await Promise.race([
    answered,
    new Promise((_, fail) => setTimeout(() => fail(new Error(`${name}: no answer in 60 s`)), 60_000)),
  ]);
  if (answer.error) throw new Error(`${name}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

let subscription = null;
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  if (command.call) {
    const [name, args] = command.call;
    await say({ result: await callRaw(name, args) });
  } else if (command.listen) {
    received.length = 0;
    subscription = await client.listen(command.listen, { timeout: 60_000 });
    const ack = received.find((m) => m.method === 'notifications/subscriptions/acknowledged');
    await say({ acknowledged: ack?.params ?? null });
  } else if (command.subscribe) {
    received.length = 0;
    try {
      await client.subscribeResource({ uri: command.subscribe }, { timeout: 60_000 });
      await say({ subscribed: true });
    } catch (error) {
      await say({ error: { code: error.code ?? null, message: String(error.message) } });
    }
  } else if (command.wait) {
    const [method, count, ms] = command.wait;
    const matching = () => received.filter((m) => m.method === method);
    const deadline = Date.now() + ms;
    while (matching().length < count && Date.now() < deadline) {
      await new Promise((done) => {
        waiter = done;
        setTimeout(done, Math.max(0, Math.min(200, deadline - Date.now())));
      });
      waiter = null;
    }
    const got = matching();
    await say(got.length >= count ? { received: got.slice(0, count) } : { timeout: got });
  } else if (command.close) {
    await subscription?.close();
    const closed = subscription ? await subscription.closed : null;
    await say({ closed });
  }
}
await client.close();
process.exit(0);
