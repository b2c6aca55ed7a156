// A client of the TypeScript SDK v2 (`@modelcontextprotocol/client`) on MCP 2026-07-28 that
// declared only URL-mode elicitation (`{"elicitation": {"url": {}}}`), over streamable HTTP,
// for tests/approval_browser.rs. It calls `close_ticket` once; the server answers an
// input-required round whose `elicitation/create` is of mode `url`, which the SDK's
// multi-round-trip driver hands to this client's elicitation handler: it shows the request on
// stdout (its user opens the URL in a browser: the test's Chromium) and accepts, and the SDK
// calls again with that answer and the round's state; then it prints the call's result and
// exits.
//
// Environment: MCP_URL (the MCP endpoint), MCP_TOKEN (its bearer token), ARGUMENTS (the
// call's arguments, JSON). Each stdout line is one JSON object, in this order:
// {"connected": {"protocolVersion"}}, {"elicitation": <the request's params, as the SDK
// handed them>}, {"result": <CallToolResult>}.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const say = (line) =>
  new Promise((done) => process.stdout.write(`${JSON.stringify(line)}\n`, done));

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { authorization: `Bearer ${process.env.MCP_TOKEN}` } },
});
const client = new Client(
  { name: 'mcp-result-url-elicitation-2', version: '0.1.0' },
  {
    capabilities: { elicitation: { url: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);

// The SDK refuses, before this handler, an elicitation of a mode the client did not declare.
client.setRequestHandler('elicitation/create', async (request) => {
  await say({ elicitation: request.params });
  return { action: 'accept' };
});

await client.connect(transport);
await say({ connected: { protocolVersion: client.getNegotiatedProtocolVersion() ?? null } });
const result = await client.callTool(
  { name: 'close_ticket', arguments: JSON.parse(process.env.ARGUMENTS) },
  { timeout: 120_000 },
);
await say({ result });
await client.close();
process.exit(0);
