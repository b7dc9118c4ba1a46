/**
 * The OAuth 2.1 authorization server (@cloudflare/workers-oauth-provider, split
 * roles): it owns discovery, /oauth/token (code exchange, refresh, RFC 7009
 * revocation) and /oauth/register (DCR), keeps clients, grants and tokens in
 * the OAUTH_KV namespace, and validates its access tokens for /mcp. This
 * Worker owns /authorize (the consent page) and the /mcp resource itself, so
 * the /mcp route keeps its own origin policy, CORS and static bearer tokens.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { OAuthAuthorizationServer, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { mcpResource, type OAuthSettings } from "../auth/mcp-resource";
import { SCOPES } from "../core/scopes";

const AUTHORIZE_PATH = "/authorize";
const TOKEN_PATH = "/oauth/token";
const REGISTER_PATH = "/oauth/register";

/** RFC 9728 metadata for /mcp. Clients ask for every scope listed; the person narrows them on the consent page. */
export function protectedResourceMetadata(oauth: OAuthSettings) {
  return {
    resource: mcpResource(oauth),
    authorization_servers: [oauth.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Order Ops Edge",
  };
}

/**
 * The checks the library failed while answering one request, by their stable
 * reasons (`code_verifier_mismatch`, ...), which never reach the wire. The
 * token endpoint's guard reads them; one server serves concurrent requests,
 * so each request gets its own list.
 */
const failedChecks = new AsyncLocalStorage<string[]>();

export async function withFailedChecks(
  answer: () => Promise<Response>,
): Promise<{ response: Response; failed: readonly string[] }> {
  const failed: string[] = [];
  const response = await failedChecks.run(failed, answer);
  return { response, failed };
}

// One per configuration (so per isolate): construction validates every option once.
const servers = new WeakMap<OAuthSettings, OAuthAuthorizationServer<Env>>();

export function authorizationServer(oauth: OAuthSettings): OAuthAuthorizationServer<Env> {
  let server = servers.get(oauth);
  if (!server) {
    server = new OAuthAuthorizationServer<Env>({
      issuer: oauth.issuer,
      resources: [mcpResource(oauth)],
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      scopesSupported: [...SCOPES],
      accessTokenTTL: oauth.accessTokenTtlSeconds,
      refreshTokenTTL: oauth.refreshTokenTtlSeconds,
      // Advertised only where the global_fetch_strictly_public flag is on (wrangler.toml sets it).
      clientIdMetadataDocumentEnabled: true,
      // The wire answer stays the library's; the log gets the exact check that failed, never a token.
      onError: ({ status, code, description, internal }) => {
        console.warn(
          `OAuth error response: ${status} ${code} - ${description} (${internal.category}/${internal.reason})`,
        );
        failedChecks.getStore()?.push(internal.reason);
      },
    });
    servers.set(oauth, server);
  }
  return server;
}

export function oauthHelpers(oauth: OAuthSettings, env: Env): OAuthHelpers {
  return authorizationServer(oauth).getOAuthApi(env);
}
