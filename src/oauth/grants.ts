import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { Hono, type Context } from "hono";
import { oauthHelpers } from "../auth/oauth-server";
import { authenticateMcpToken } from "../auth/operator";
import { grantUserId } from "../auth/operator-sign-in";
import type { McpTokenHolder } from "../config/config";
import { requireCredential, type WithHolder } from "../http/credential-middleware";
import { originPolicy } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { oauthSettings } from "./require-oauth";

/**
 * /oauth/grants: what an operator has let OAuth clients do, and a way to take
 * it back. Authenticated with the operator's own MCP token. Revoking a grant
 * ends its access and refresh tokens at once; the client has to connect (and
 * the person consent) again. Behind the same door as /mcp (originPolicy): the
 * published dev token must not let a rebound or foreign page list or revoke.
 */
type GrantsEnv = WithHolder<McpTokenHolder>;

export const grantRoutes = new Hono<GrantsEnv>();

grantRoutes.use(
  "*",
  originPolicy("this OAuth server"),
  requireCredential({
    authenticate: authenticateMcpToken,
    rateLimit: { surface: "mcp", key: (holder) => `${holder.account}:${holder.operator}` },
  }),
);

function helpers(c: Context<GrantsEnv>): OAuthHelpers {
  return oauthHelpers(oauthSettings(c.get("config")), c.env);
}

async function operatorGrants(oauth: OAuthHelpers, userId: string): Promise<GrantSummary[]> {
  const grants: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, cursor === undefined ? { limit: 1000 } : { limit: 1000, cursor });
    grants.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return grants;
}

function grantView(grant: GrantSummary) {
  const metadata = (grant.metadata ?? {}) as { client_name?: unknown };
  return {
    grant_id: grant.id,
    client_id: grant.clientId,
    client_name: typeof metadata.client_name === "string" ? metadata.client_name : null,
    redirect_uri: grant.redirectUri ?? null,
    scopes: grant.scope,
    created_at: new Date(grant.createdAt * 1000).toISOString(),
    expires_at: grant.expiresAt === undefined ? null : new Date(grant.expiresAt * 1000).toISOString(),
  };
}

grantRoutes.get("/", async (c) => {
  const grants = await operatorGrants(helpers(c), grantUserId(c.get("holder")));
  return c.json({ grants: grants.map(grantView) });
});
grantRoutes.all("/", methodNotAllowed(["GET"]));

grantRoutes.delete("/:grantId", async (c) => {
  const oauth = helpers(c);
  const userId = grantUserId(c.get("holder"));
  const grantId = c.req.param("grantId");
  // Only this operator's grants: an id from anyone else's list is answered like an unknown one.
  const grant = (await operatorGrants(oauth, userId)).find((g) => g.id === grantId);
  if (!grant) return errorResponse(c, { code: "not_found", message: `no grant ${grantId} belongs to you; GET /oauth/grants lists yours` });
  await oauth.revokeGrant(grant.id, userId);
  return c.json({ revoked: grantView(grant) });
});
grantRoutes.all("/:grantId", methodNotAllowed(["DELETE"]));
