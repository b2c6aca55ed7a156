// A real OAuth 2.1 authorization server for the OAuth tests, built on `oidc-provider`.
//
//   node oauth-server.mjs
//
// Listens on 127.0.0.1 on a free port. When ready it prints exactly one line of JSON to
// stdout, `{"issuer":"http://127.0.0.1:PORT"}`, and then serves until killed. Nothing else
// is ever written to stdout (oidc-provider's notices go to stderr).
//
// Issuer `http://127.0.0.1:PORT` (no trailing slash). Routes served by oidc-provider:
//   GET  /.well-known/openid-configuration     metadata (token_endpoint, jwks_uri,
//                                              introspection_endpoint, revocation_endpoint, ...)
//   GET  /.well-known/oauth-authorization-server   the same metadata (RFC 8414), rewritten here
//   GET  /jwks                                 the public signing key(s)
//   POST /token                                grant_type=client_credentials [&scope=..] [&resource=URL]
//   POST /token/introspection                  RFC 7662
//   POST /token/revocation                     RFC 7009
//
// Token endpoint behaviour:
//   - Any absolute `resource` URL is accepted (RFC 8707); the access token's `aud` is that URL.
//     Access tokens live 600 s. They are RFC 9068 JWTs (header typ `at+jwt`, ES256, `kid`,
//     claims iss, sub (= client_id), aud, exp, iat, jti, scope, client_id, and `tenant` for
//     mcp-client (acme) / mcp-bob (globex)), except for client `mcp-opaque`, which gets opaque
//     tokens (use introspection for those). Without `resource` a token is opaque, with no `aud`.
//   - `scope` absent: the client's whole registered scope is granted. A scope outside the
//     client's registered scope is refused with `invalid_scope`.
//   - Clients authenticate with client_secret_basic or client_secret_post:
//       mcp-client / client-secret   tickets:read tickets:write   tenant acme
//       mcp-bob    / bob-secret      tickets:read tickets:write   tenant globex
//       mcp-reader / reader-secret   tickets:read
//       mcp-opaque / opaque-secret   tickets:read tickets:write   opaque access tokens
//       mcp-server / server-secret   the resource server: may introspect any client's token
//   - Introspection: a client may introspect its own tokens, mcp-server any token. Revocation: a
//     client may revoke its own tokens.
//
// Test-only endpoints (handled here, in front of oidc-provider):
//   POST /test/rotate        new ES256 signing key with a new kid; from then on the JWKS lists
//                            only that key and new tokens are signed with it.  -> {"kid":"..."}
//   POST /test/sign          body {"header":{...},"payload":{...}}: a compact JWS of `payload`
//                            (any JSON value, serialised as is) signed ES256 with the current
//                            key. Header = {alg:"ES256", kid:<current>, typ:"at+jwt"} overlaid
//                            with `header`; a field given as null is removed (e.g. {"kid":null});
//                            `alg` cannot be changed.  -> {"token":"..."}
//   GET  /test/jwks-fetches  number of GET requests served on the jwks_uri so far. -> {"count":N}
//
// People signing in (the approvals page, tests/approval_oauth.rs): with the environment variable
// OAUTH_APPROVALS_REDIRECT_URI set, the confidential client mcp-approvals / approvals-secret
// (authorization_code, PKCE, that one redirect URI) is registered too, and oidc-provider's
// development interactions are on: GET /auth -> /interaction/UID, a login form (any login and
// password; the login is the account id, `sub`), then a consent form, then the redirect with the
// code. People's tenants (the `tenant` claim of their access tokens): alice, carol -> acme;
// eve -> globex.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

// oidc-provider prints its development notices with console.info (stdout): route every console
// output except errors to stderr before it is loaded, so stdout only carries the ready line.
for (const method of ['log', 'info', 'debug', 'warn']) {
  console[method] = (...args) => console.error(...args);
}

const { default: Provider } = await import('oidc-provider');
const { CompactSign, exportJWK, generateKeyPair, importJWK } = await import('jose');

/** The scope every resource server (any `resource` URL) accepts. */
const RESOURCE_SCOPE = 'tickets:read tickets:write';
const ACCESS_TOKEN_TTL = 600;

/** The custom `tenant` claim of each client's JWT access tokens. */
const TENANTS = { 'mcp-client': 'acme', 'mcp-bob': 'globex' };

const CLIENTS = [
  { client_id: 'mcp-client', client_secret: 'client-secret', scope: RESOURCE_SCOPE },
  { client_id: 'mcp-bob', client_secret: 'bob-secret', scope: RESOURCE_SCOPE },
  { client_id: 'mcp-reader', client_secret: 'reader-secret', scope: 'tickets:read' },
  { client_id: 'mcp-opaque', client_secret: 'opaque-secret', scope: RESOURCE_SCOPE },
  { client_id: 'mcp-server', client_secret: 'server-secret', scope: RESOURCE_SCOPE },
].map((client) => ({
  ...client,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  // oidc-provider accepts client_secret_post as well for a client registered with
  // client_secret_basic (and the other way round).
  token_endpoint_auth_method: 'client_secret_basic',
}));

/** The approvals page's client, when the test gives its redirect URI. */
const APPROVALS_REDIRECT_URI = process.env.OAUTH_APPROVALS_REDIRECT_URI;
if (APPROVALS_REDIRECT_URI) {
  CLIENTS.push({
    client_id: 'mcp-approvals',
    client_secret: 'approvals-secret',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [APPROVALS_REDIRECT_URI],
    token_endpoint_auth_method: 'client_secret_basic',
  });
}

/** The `tenant` claim of people's access tokens, by account id (the login typed). */
const ACCOUNT_TENANTS = { alice: 'acme', carol: 'acme', eve: 'globex' };

/** The client whose tokens are opaque (for introspection tests). */
const OPAQUE_CLIENT = 'mcp-opaque';
/** The resource server, which may introspect every client's tokens. */
const RESOURCE_SERVER_CLIENT = 'mcp-server';

/** A fresh ES256 signing key as a private JWK with a new kid. */
async function newSigningKey() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `es256-${randomUUID()}`, use: 'sig', alg: 'ES256' };
}

/**
 * A client_credentials request without `scope` gets the client's whole registered scope
 * (RFC 6749 §3.3 allows a pre-defined default); oidc-provider would otherwise issue a token
 * without any scope. Called from the resource indicator hooks, which run before the grant
 * reads the requested scope.
 */
function defaultClientCredentialsScope(ctx, client) {
  const { params, route } = ctx.oidc;
  if (route === 'token' && params.grant_type === 'client_credentials' && !params.scope && client?.scope) {
    params.scope = client.scope;
  }
}

/**
 * oidc-provider's storage: a process-wide in-memory store. Its built-in memory adapter keeps one
 * store per Provider instance, which would forget every opaque token on /test/rotate; this one
 * is shared by all of them. Entries expire with the artifact they hold.
 */
const STORE = new Map();

class SharedMemoryAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity;
    STORE.set(this.key(id), { payload, expiresAt });
    if (payload.uid) STORE.set(`uid:${payload.uid}`, { payload: id, expiresAt });
    if (payload.userCode) STORE.set(`userCode:${payload.userCode}`, { payload: id, expiresAt });
  }

  async find(id) {
    return SharedMemoryAdapter.read(this.key(id));
  }

  async findByUid(uid) {
    return this.find(SharedMemoryAdapter.read(`uid:${uid}`));
  }

  async findByUserCode(userCode) {
    return this.find(SharedMemoryAdapter.read(`userCode:${userCode}`));
  }

  async consume(id) {
    const payload = SharedMemoryAdapter.read(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    STORE.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const [key, { payload }] of STORE) {
      if (payload?.grantId === grantId) STORE.delete(key);
    }
  }

  static read(key) {
    const entry = STORE.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      STORE.delete(key);
      return undefined;
    }
    return entry.payload;
  }
}

function buildProvider(issuer, signingKey) {
  const provider = new Provider(issuer, {
    adapter: SharedMemoryAdapter,
    clients: CLIENTS,
    jwks: { keys: [signingKey] },
    scopes: ['openid', ...RESOURCE_SCOPE.split(' ')],
    // No implicit grant in the metadata; only the approvals page's client (mcp-approvals) uses the authorization endpoint.
    responseTypes: ['code'],
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { AccessToken: ACCESS_TOKEN_TTL, ClientCredentials: ACCESS_TOKEN_TTL },
    findAccount: async (ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id }),
    }),
    features: {
      devInteractions: { enabled: Boolean(APPROVALS_REDIRECT_URI) },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // The resource server may introspect any token, every other client its own only.
        allowedPolicy: async (ctx, client, token) =>
          client.clientId === RESOURCE_SERVER_CLIENT || client.clientId === token.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (ctx, client, token) => client.clientId === token.clientId,
      },
      resourceIndicators: {
        enabled: true,
        // No `resource` in the request: none is assumed (the token then has no audience).
        defaultResource: async (ctx, client, oneOf) => {
          defaultClientCredentialsScope(ctx, client);
          return oneOf;
        },
        useGrantedResource: async () => true,
        // Every absolute URL names a resource server whose audience is the URL itself.
        getResourceServerInfo: async (ctx, resource, client) => {
          defaultClientCredentialsScope(ctx, client);
          if (client?.clientId === OPAQUE_CLIENT) {
            return {
              audience: resource,
              scope: RESOURCE_SCOPE,
              accessTokenTTL: ACCESS_TOKEN_TTL,
              accessTokenFormat: 'opaque',
            };
          }
          return {
            audience: resource,
            scope: RESOURCE_SCOPE,
            accessTokenTTL: ACCESS_TOKEN_TTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // `sub` makes introspection answer a subject for client_credentials tokens too (the JWT
    // format sets sub = client_id by itself); `tenant` is the custom claim of the tests.
    extraTokenClaims: async (ctx, token) => {
      // A person's token (authorization code): `sub` is the account, the tenant is theirs.
      if (token.accountId) {
        return ACCOUNT_TENANTS[token.accountId] ? { tenant: ACCOUNT_TENANTS[token.accountId] } : {};
      }
      const claims = { sub: token.clientId };
      if (TENANTS[token.clientId]) claims.tenant = TENANTS[token.clientId];
      return claims;
    },
  });
  provider.on('server_error', (ctx, error) => console.error('oauth-server: server_error', error));
  return provider;
}

/** Reads a request body as JSON ({} when empty). */
async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text ? JSON.parse(text) : {};
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

// The server listens first: the issuer needs the port it was given.
const server = createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

// The current provider and key; /test/rotate replaces both (tokens issued before stay valid:
// they live in STORE, which every Provider instance shares).
let signingKey = await newSigningKey();
let provider = buildProvider(issuer, signingKey);
let dispatch = provider.callback();
const jwksPath = new URL(provider.urlFor('jwks')).pathname;
let jwksFetches = 0;

/** The test-only endpoints; returns false when `url` is none of them. */
async function handleTestRoute(req, res, url) {
  const route = `${req.method} ${url.pathname}`;
  switch (route) {
    case 'POST /test/rotate': {
      signingKey = await newSigningKey();
      provider = buildProvider(issuer, signingKey);
      dispatch = provider.callback();
      sendJson(res, 200, { kid: signingKey.kid });
      return true;
    }
    case 'POST /test/sign': {
      let body;
      try {
        body = await readJson(req);
      } catch (error) {
        sendJson(res, 400, { error: `invalid JSON body: ${error.message}` });
        return true;
      }
      if (body === null || typeof body !== 'object' || !('payload' in body)) {
        sendJson(res, 400, { error: 'body must be {"header":{...},"payload":{...}}' });
        return true;
      }
      const header = { kid: signingKey.kid, typ: 'at+jwt', ...(body.header ?? {}), alg: 'ES256' };
      for (const [name, value] of Object.entries(header)) {
        if (value === null) delete header[name];
      }
      const key = await importJWK(signingKey, 'ES256');
      const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(body.payload)))
        .setProtectedHeader(header)
        .sign(key);
      sendJson(res, 200, { token });
      return true;
    }
    case 'GET /test/jwks-fetches':
      sendJson(res, 200, { count: jwksFetches });
      return true;
    default:
      if (url.pathname.startsWith('/test/')) {
        sendJson(res, 404, { error: `no test endpoint ${route}` });
        return true;
      }
      return false;
  }
}

server.on('request', async (req, res) => {
  try {
    const url = new URL(req.url, issuer);
    if (await handleTestRoute(req, res, url)) return;
    if (req.method === 'GET' && url.pathname === jwksPath) jwksFetches += 1;
    // RFC 8414 metadata: the same document as OpenID discovery (the issuer has no path).
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      req.url = `/.well-known/openid-configuration${url.search}`;
    }
    dispatch(req, res);
  } catch (error) {
    console.error('oauth-server:', error);
    if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
    else res.destroy();
  }
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
