/**
 * /oauth/grants: what an operator has let OAuth clients do, and a way to take
 * it back. Authenticated with the operator's own MCP token. Revoking a grant
 * ends its access and refresh tokens at once; the client has to connect (and
 * the person consent) again. Behind the same door as /mcp (originPolicy): the
 * published dev token must not let a rebound or foreign page list or revoke.
 */
import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { Hono, type Context } from "hono";
import { oauthHelpers } from "../auth/oauth-server";
import { authenticateMcpToken } from "../auth/operator";
import { grantUserId, readableGrantUserId } from "../auth/operator-sign-in";
import type { McpTokenHolder } from "../config/config";
import { requireCredential, type WithHolder } from "../http/credential-middleware";
import { originPolicy } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { oauthSettings } from "./require-oauth";

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

async function grantsOf(oauth: OAuthHelpers, userId: string): Promise<GrantSummary[]> {
  const grants: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(userId, cursor === undefined ? { limit: 1000 } : { limit: 1000, cursor });
    grants.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return grants;
}

/** The operator's grants, each with the user id it is filed under (needed to revoke it). */
async function operatorGrants(oauth: OAuthHelpers, holder: McpTokenHolder): Promise<Array<{ grant: GrantSummary; userId: string }>> {
  const userIds = [await grantUserId(holder), readableGrantUserId(holder)];
  const lists = await Promise.all(userIds.map((userId) => grantsOf(oauth, userId)));
  return lists.flatMap((grants, i) => grants.map((grant) => ({ grant, userId: userIds[i] ?? "" })));
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
  const grants = await operatorGrants(helpers(c), c.get("holder"));
  return c.json({ grants: grants.map(({ grant }) => grantView(grant)) });
});
grantRoutes.all("/", methodNotAllowed(["GET"]));

grantRoutes.delete("/:grantId", async (c) => {
  const oauth = helpers(c);
  const grantId = c.req.param("grantId");
  // Only this operator's grants: an id from anyone else's list is answered like an unknown one.
  const found = (await operatorGrants(oauth, c.get("holder"))).find(({ grant }) => grant.id === grantId);
  if (!found) return errorResponse(c, { code: "not_found", message: `no grant ${grantId} belongs to you; GET /oauth/grants lists yours` });
  await oauth.revokeGrant(found.grant.id, found.userId);
  return c.json({ revoked: grantView(found.grant) });
});
grantRoutes.all("/:grantId", methodNotAllowed(["DELETE"]));
