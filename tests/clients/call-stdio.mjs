// Driver: one stdio session of the TypeScript SDK v1 client, `@modelcontextprotocol/sdk`,
// which declares no elicitation: it launches argv[2] (the server's environment passed on
// whole, its stderr inherited), calls each `[name, arguments]` (or `[name, arguments, _meta]`)
// of the JSON array argv[3] in turn, and prints each result as one JSON line on stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, calls] = [process.argv[2], JSON.parse(process.argv[3])];
const transport = new StdioClientTransport({ command, args: [], env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'mcp-result-defaults', version: '0.1.0' }, { capabilities: {} });
await client.connect(transport, { timeout: 60000 });
for (const [name, args, meta] of calls) {
  const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
  const result = await client.callTool(params, undefined, { timeout: 60000 });
  process.stdout.write(JSON.stringify(result) + '\n');
}
await client.close();
