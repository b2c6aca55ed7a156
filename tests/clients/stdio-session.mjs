// Driver: one stdio session of the TypeScript SDK v1 client, `@modelcontextprotocol/sdk`,
// for tests/local_page.rs. It launches argv[2] (the server's environment passed on whole,
// its stderr inherited) and declares no elicitation, or with ELICITATION=url only URL-mode
// elicitation (whose requests it prints and accepts: its user opens the link, the test's
// Chromium). Each line of its stdin is one call, `[name, arguments]`; it prints each
// result. At the end of stdin it closes the session.
//
// Each stdout line is one JSON object: {"connected": true} once, then per call
// {"elicitation": <the request's params>} when one came, and {"result": <CallToolResult>}.
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const say = (line) =>
  new Promise((done) => process.stdout.write(`${JSON.stringify(line)}\n`, done));

const url = process.env.ELICITATION === 'url';
const transport = new StdioClientTransport({
  command: process.argv[2],
  args: [],
  env: process.env,
  stderr: 'inherit',
});
const client = new Client(
  { name: 'mcp-result-stdio-session', version: '0.1.0' },
  { capabilities: url ? { elicitation: { url: {} } } : {} },
);
if (url) {
  // The SDK refuses, before this handler, an elicitation of a mode the client did not declare.
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    await say({ elicitation: request.params });
    return { action: 'accept' };
  });
}
await client.connect(transport, { timeout: 60_000 });
await say({ connected: true });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const [name, args] = JSON.parse(line);
  const result = await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  });
  await say({ result });
}
await client.close();
process.exit(0);
