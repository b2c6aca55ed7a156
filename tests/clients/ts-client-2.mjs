// Driver: the TypeScript SDK v2 client, `@modelcontextprotocol/client` (Client +
// StdioClientTransport). It validates `structuredContent` against the tool's outputSchema
// (Ajv on Node) and speaks both eras: the `initialize` handshake (`legacy`, offering the
// first entry of `supportedProtocolVersions`) and 2026-07-28 (`versionNegotiation` pin).
import { Client, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { installedVersion, readJob, runJob, writeReport } from './lib.mjs';

const { job, reportPath } = readJob();

function clientOptions(run) {
  switch (run.connect) {
    case 'legacy':
      // The SDK's own option: offer this version first in `initialize`.
      return {
        supportedProtocolVersions: [
          run.protocol,
          ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== run.protocol),
        ],
      };
    case 'modern':
      return { versionNegotiation: { mode: { pin: run.protocol } } };
    default:
      throw new Error(`unsupported connect mode ${run.connect}`);
  }
}

async function session(run) {
  const transport = new StdioClientTransport({ command: run.command, args: run.args, stderr: 'inherit' });
  const client = new Client({ name: 'mcp-result-conformance', version: '0.1.0' }, clientOptions(run));
  await client.connect(transport, { timeout: job.timeoutMs });
  const options = { timeout: job.timeoutMs };
  return {
    negotiated: client.getNegotiatedProtocolVersion() ?? null,
    listTools: async () => (await client.listTools(undefined, options)).tools,
    callTool: (name, args, meta) =>
      client.callTool(meta ? { name, arguments: args, _meta: meta } : { name, arguments: args }, options),
    close: () => client.close(),
  };
}

const report = await runJob(job, session);
writeReport(reportPath, `@modelcontextprotocol/client ${installedVersion('@modelcontextprotocol/client')}`, report);
