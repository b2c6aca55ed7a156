// A small weather server on the TypeScript MCP SDK's McpServer (@modelcontextprotocol/sdk
// 1.32, pinned in tests/clients/package.json), with planted violations for
// mcp-result-check (mcp-result-check/tests/check.rs runs it over stdio and asserts exactly
// these findings).
//
// The SDK and zod are imported from the workspace's tests/clients/node_modules by path: this
// file is not under that directory, so bare specifiers would not resolve.
//
// Planted (the check that reports each in brackets):
// - get_conditions: structuredContent, but no text block with its JSON [json-compat-text];
// - get_radar: no outputSchema, the answer only as text [output-schema-missing];
// - reset_thermostat, a write tool: `status` and `auditEventId` but no `retrySafe`
//   [write-contract];
// - get_station_token: the station's GitHub token in the result [secret].
//
// What McpServer does by itself, reported as well:
// - a call of an unknown tool is an isError result ("Tool ... not found"), not a JSON-RPC
//   error [unknown-tool];
// - bad arguments (lookup_city with a number for `city`) are an isError result with the
//   zod message as its only content: no `status`, no `retrySafe`, no field named in
//   structuredContent [error-status, error-retry-safe, error-field-errors].
//
// get_forecast is the control: no findings.

const modules = new URL('../../../tests/clients/node_modules/', import.meta.url);
const { McpServer } = await import(new URL('@modelcontextprotocol/sdk/dist/esm/server/mcp.js', modules));
const { StdioServerTransport } = await import(new URL('@modelcontextprotocol/sdk/dist/esm/server/stdio.js', modules));
const { z } = await import(new URL('zod/index.js', modules));

const server = new McpServer({ name: 'weather', version: '1.0.0' });
const readOnly = { readOnlyHint: true };

/** A result the way mcp-result builds one: summary, JSON-compat text, structuredContent. */
function structured(value, summary) {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(value) },
    ],
    structuredContent: value,
  };
}

server.registerTool(
  'get_forecast',
  {
    description: "Tomorrow's forecast for the home station.",
    outputSchema: { city: z.string(), highC: z.number(), lowC: z.number() },
    annotations: readOnly,
  },
  async () => structured({ city: 'Oslo', highC: 12, lowC: 4 }, 'Oslo tomorrow: 4 to 12 °C.'),
);

server.registerTool(
  'lookup_city',
  {
    description: 'Look a city up by name.',
    inputSchema: { city: z.string() },
    outputSchema: { city: z.string(), country: z.string() },
    annotations: readOnly,
  },
  async ({ city }) => structured({ city, country: 'NO' }, `${city} is in NO.`),
);

server.registerTool(
  'get_conditions',
  {
    description: 'Current conditions at the home station.',
    outputSchema: { tempC: z.number(), wind: z.string() },
    annotations: readOnly,
  },
  async () => ({
    content: [{ type: 'text', text: '7 °C, light wind.' }],
    structuredContent: { tempC: 7, wind: 'light' },
  }),
);

server.registerTool(
  'get_radar',
  { description: 'Describe the radar picture.', annotations: readOnly },
  async () => ({ content: [{ type: 'text', text: 'Rain moving in from the west.' }] }),
);

server.registerTool(
  'reset_thermostat',
  {
    description: 'Reset the thermostat to its schedule.',
    outputSchema: { status: z.enum(['succeeded', 'failed']), auditEventId: z.string() },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  async () =>
    structured({ status: 'succeeded', auditEventId: 'evt-1' }, 'Thermostat reset (audit evt-1).'),
);

server.registerTool(
  'get_station_token',
  {
    description: "The home station's upload settings.",
    outputSchema: { station: z.string(), uploadToken: z.string() },
    annotations: readOnly,
  },
  async () =>
    structured(
      { station: 'home', uploadToken: 'ghp_0123456789abcdefghijABCDEFGHIJ012345' },
      'Upload settings of the home station.',
    ),
);

await server.connect(new StdioServerTransport());
