// A client of the TypeScript SDK v1 (`@modelcontextprotocol/sdk`) that declared only
// URL-mode elicitation (`{"elicitation": {"url": {}}}`), over streamable HTTP, for
// tests/approval_browser.rs. It calls `close_ticket` once; when the server sends it an
// `elicitation/create` of mode `url`, it shows the request on stdout (its user opens the URL
// in a browser: the test's Chromium) and accepts; then it prints the call's result and the
// `notifications/elicitation/complete` it was sent, and exits.
//
// Environment: MCP_URL (the MCP endpoint), MCP_TOKEN (its bearer token), ARGUMENTS (the
// call's arguments, JSON). Each stdout line is one JSON object, in this order:
// {"connected": {"protocolVersion"}}, {"elicitation": <the request's params>},
// {"result": <CallToolResult>}, {"complete": <the notification's params, or null>}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const say = (line) =>
  new Promise((done) => process.stdout.write(`${JSON.stringify(line)}\n`, done));

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const client = new Client(
  { name: 'mcp-result-url-elicitation', version: '0.1.0' },
  { capabilities: { elicitation: { url: {} } } },
);

let completed;
const complete = new Promise((resolve) => {
  completed = resolve;
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) =>
  completed(notification.params),
);
// The SDK refuses, before this handler, an elicitation of a mode the client did not declare.
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  await say({ elicitation: request.params });
  return { action: 'accept' };
});

await client.connect(transport);
await say({ connected: { protocolVersion: transport.protocolVersion } });
const result = await client.callTool(
  { name: 'close_ticket', arguments: JSON.parse(process.env.ARGUMENTS) },
  undefined,
  { timeout: 120_000 },
);
await say({ result });
// The notification may come before or after the result, on the call's stream or the
// session's: waited for up to 30 s.
const late = new Promise((resolve) => setTimeout(() => resolve(null), 30_000).unref());
await say({ complete: await Promise.race([complete, late]) });
await client.close();
process.exit(0);
