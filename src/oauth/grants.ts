/**
 * /oauth/grants: what an operator has let OAuth clients do, and a way to take
 * it back. Authenticated with the operator's own MCP token; an admin token
 * also sees and revokes the grants of every operator of its account. Revoking
 * a grant ends its access and refresh tokens at once; the client has to connect (and
 * the person consent) again. Behind the same door as /mcp (originPolicy): the
 * published dev token must not let a rebound or foreign page list or revoke.
 */
import type { GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import { authenticateMcpToken } from "../auth/operator";
import type { Config, McpTokenHolder } from "../config/config";
import { requireCredential, type WithHolder } from "../http/credential-middleware";
import { originPolicy } from "../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { oauthHelpers } from "./authorization-server";
import { grantUserId, readableGrantUserId } from "./operator-sign-in";
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

/**
 * The grants a holder may see and revoke, each with the user id it is filed
 * under (needed to revoke it): their own, or, for an admin, those of every
 * operator of their account that configuration names.
 */
async function operatorGrants(
  oauth: OAuthHelpers,
  holder: McpTokenHolder,
  config: Config,
): Promise<Array<{ grant: GrantSummary; userId: string; operator: string }>> {
  const operators =
    holder.role === "admin"
      ? [...new Set([...config.mcpTokens.values()].filter((h) => h.account === holder.account).map((h) => h.operator))]
      : [holder.operator];
  const filed = await Promise.all(
    operators.flatMap((operator) => [
      grantUserId({ account: holder.account, operator }).then((userId) => ({ userId, operator })),
      Promise.resolve({ userId: readableGrantUserId({ account: holder.account, operator }), operator }),
    ]),
  );
  const lists = await Promise.all(filed.map(({ userId }) => grantsOf(oauth, userId)));
  return lists.flatMap((grants, i) =>
    grants.map((grant) => ({ grant, userId: filed[i]?.userId ?? "", operator: filed[i]?.operator ?? "" })),
  );
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
  const grants = await operatorGrants(helpers(c), c.get("holder"), c.get("config"));
  return c.json({ grants: grants.map(({ grant, operator }) => ({ ...grantView(grant), operator })) });
});
grantRoutes.all("/", methodNotAllowed(["GET"]));

grantRoutes.delete("/:grantId", async (c) => {
  const oauth = helpers(c);
  const grantId = c.req.param("grantId");
  // Only grants this holder may see: an id from anyone else's list is answered like an unknown one.
  const found = (await operatorGrants(oauth, c.get("holder"), c.get("config"))).find(
    ({ grant }) => grant.id === grantId,
  );
  if (!found)
    return errorResponse(c, {
      code: "not_found",
      message: `no grant ${grantId} belongs to you; GET /oauth/grants lists yours`,
    });
  await oauth.revokeGrant(found.grant.id, found.userId);
  return c.json({ revoked: grantView(found.grant) });
});
grantRoutes.all("/:grantId", methodNotAllowed(["DELETE"]));
