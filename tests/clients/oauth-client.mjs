// A real MCP client that signs in by itself: the TypeScript SDK v1 (`@modelcontextprotocol/sdk`)
// Client over StreamableHTTPClientTransport, with the SDK's ClientCredentialsProvider as its
// authProvider. The SDK does the whole OAuth dance on its own: the MCP server's 401 and its
// `WWW-Authenticate: Bearer resource_metadata=...`, the protected resource metadata
// (RFC 9728), the authorization server metadata (RFC 8414), the client_credentials token
// request (client_secret_basic, with `resource`, RFC 8707) and the retried MCP request.
//
//   node oauth-client.mjs <mcp-url> <client_id> <client_secret> <tool-name> ['<json args>']
//
// Optional environment:
//   OAUTH_EXPECTED_ISSUER  the authorization server's issuer, passed as `expectedIssuer` (the SDK
//                          then refuses to send the credentials to any other one; without it
//                          the SDK prints a deprecation warning to stderr and trusts the server).
//   OAUTH_SCOPE            the `scope` of the ClientCredentialsProvider. Without it the SDK's
//                          token request carries no `scope` (the SDK takes the token request's
//                          scope from the provider only, not from WWW-Authenticate).
//   OAUTH_CLIENT_TIMEOUT_MS  gives up after this long (default 30000).
//
// On success prints ONE line of JSON to stdout and exits 0:
//   {"tools":[<tool names>],
//    "result":<the CallToolResult, as the SDK returned it>,
//    "requests":["POST http://.../mcp -> 401", "GET http://.../.well-known/... -> 200", ...],
//    "tokenRequests":[{"url":..., "auth":"client_secret_basic"|"client_secret_post"|null,
//                      "params":{<form fields but client_secret>}}]}
// `requests` lists every HTTP request the client made, in the order the responses arrived
// (a request that failed without a response reads "METHOD URL -> ERROR <message>").
// On failure: the error on stderr, exit code 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

// stdout carries only the result line: anything the SDK logs goes to stderr.
for (const method of ['log', 'info', 'debug', 'warn']) {
  console[method] = (...args) => console.error(...args);
}

function fail(error) {
  console.error(`oauth-client: ${error?.stack ?? error}`);
  process.exit(1);
}

const [mcpUrl, clientId, clientSecret, toolName, argsJson = '{}'] = process.argv.slice(2);
if (!mcpUrl || !clientId || !clientSecret || !toolName) {
  fail("usage: node oauth-client.mjs <mcp-url> <client_id> <client_secret> <tool-name> ['<json args>']");
}
let toolArgs;
try {
  toolArgs = JSON.parse(argsJson);
} catch (error) {
  fail(`the tool arguments are not JSON: ${error.message}`);
}

const timeoutMs = Number(process.env.OAUTH_CLIENT_TIMEOUT_MS ?? 30000);
setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs).unref();

// Every request the client makes, MCP and OAuth alike, goes through this fetch: it is passed to
// the transport (which hands it to the SDK's auth code) and also replaces globalThis.fetch, for
// any code path that would use the default.
const requests = [];
const tokenRequests = [];
const baseFetch = globalThis.fetch;

function describeRequest(input, init) {
  const url = input instanceof Request ? input.url : String(input);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { method, url };
}

/** Records a token request (form body with `grant_type`), leaving the secret out. */
function recordTokenRequest(url, init) {
  if (!(init?.body instanceof URLSearchParams) || !init.body.has('grant_type')) return;
  const params = Object.fromEntries([...init.body].filter(([name]) => name !== 'client_secret'));
  const authorization = new Headers(init.headers).get('authorization');
  let auth = null;
  if (authorization?.toLowerCase().startsWith('basic ')) auth = 'client_secret_basic';
  else if (init.body.has('client_secret')) auth = 'client_secret_post';
  tokenRequests.push({ url, auth, params });
}

async function loggingFetch(input, init) {
  const { method, url } = describeRequest(input, init);
  recordTokenRequest(url, init);
  try {
    const response = await baseFetch(input, init);
    requests.push(`${method} ${url} -> ${response.status}`);
    return response;
  } catch (error) {
    requests.push(`${method} ${url} -> ERROR ${error?.message ?? error}`);
    throw error;
  }
}
globalThis.fetch = loggingFetch;

const authProvider = new ClientCredentialsProvider({
  clientId,
  clientSecret,
  clientName: 'mcp-oauth-test-client',
  ...(process.env.OAUTH_SCOPE ? { scope: process.env.OAUTH_SCOPE } : {}),
  ...(process.env.OAUTH_EXPECTED_ISSUER ? { expectedIssuer: process.env.OAUTH_EXPECTED_ISSUER } : {}),
});

/** A connected Client; the transport signs in by itself on the server's first 401. */
async function connect() {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider, fetch: loggingFetch });
  const client = new Client({ name: 'mcp-oauth-test-client', version: '0.1.0' });
  await client.connect(transport);
  return client;
}

let client;
try {
  try {
    client = await connect();
  } catch (error) {
    // For client_credentials the transport gets the token and retries inside send(), so this
    // is not expected; an UnauthorizedError would mean the SDK stopped before having a token.
    // The documented recovery is to start over once: the provider keeps what it obtained.
    if (!(error instanceof UnauthorizedError)) throw error;
    console.error(`oauth-client: connect raised UnauthorizedError (${error.message}); retrying once`);
    client = await connect();
  }
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: toolName, arguments: toolArgs });
  const line = JSON.stringify({ tools: tools.map((tool) => tool.name), result, requests, tokenRequests });
  await client.close().catch(() => {});
  process.stdout.write(`${line}\n`, () => process.exit(0));
} catch (error) {
  await client?.close().catch(() => {});
  if (requests.length) console.error(`oauth-client: requests so far:\n  ${requests.join('\n  ')}`);
  fail(error);
}
