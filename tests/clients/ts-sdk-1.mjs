// Driver: the TypeScript SDK v1 client, `@modelcontextprotocol/sdk` (Client +
// StdioClientTransport). After `listTools()` it validates every `structuredContent` it
// receives against the tool's outputSchema with Ajv, and raises on a mismatch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installedVersion, readJob, runJob, writeReport } from './lib.mjs';

const { job, reportPath } = readJob();

async function session(run) {
  if (run.connect !== 'legacy') throw new Error(`unsupported connect mode ${run.connect}`);
  const transport = new StdioClientTransport({ command: run.command, args: run.args, stderr: 'inherit' });
  // Record the version the server answered in `initialize` (the SDK keeps it private).
  let negotiated = null;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (negotiated === null && typeof message?.result?.protocolVersion === 'string') {
        negotiated = message.result.protocolVersion;
      }
      deliver?.(message, extra);
    };
    return start();
  };
  const client = new Client(
    { name: 'mcp-result-conformance', version: '0.1.0' },
    { capabilities: { elicitation: {} } },
  );
  // The user of this client: answers an elicitation as the plan's call says.
  const elicitation = { answer: null, asked: false };
  client.setRequestHandler(ElicitRequestSchema, async () => {
    elicitation.asked = true;
    const action = elicitation.answer ?? 'decline';
    return action === 'accept' ? { action, content: { approve: true } } : { action };
  });
  await client.connect(transport, { timeout: job.timeoutMs });
  const options = { timeout: job.timeoutMs };
  return {
    elicitation,
    negotiated,
    listTools: async () => (await client.listTools(undefined, options)).tools,
    callTool: (name, args, meta) =>
      client.callTool(
        meta ? { name, arguments: args, _meta: meta } : { name, arguments: args },
        undefined,
        options,
      ),
    close: () => client.close(),
  };
}

const report = await runJob(job, session);
writeReport(reportPath, `@modelcontextprotocol/sdk ${installedVersion('@modelcontextprotocol/sdk')}`, report);
