import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { authorizationServer, protectedResourceMetadata } from "../auth/oauth-server";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { servedHostOnly } from "../http/origin-guard";
import { limitPerAddress } from "../http/rate-limit";
import { errorResponse } from "../http/respond";
import { grantRoutes } from "./grants";
import { oauthSettings, requireOAuth } from "./require-oauth";

/**
 * The protocol side of OAuth: discovery under /.well-known, and /oauth/token
 * and /oauth/register, which the library answers (with its own CORS, since
 * browser-based clients call them). /authorize is the consent page
 * (consent.ts); /oauth/grants lets an operator list and revoke grants.
 */
// Hono types its execution context more loosely than workers-types; it is the runtime's own object.
const libraryAnswers = (c: Context<AppEnv>) => authorizationServer(oauthSettings(c.get("config"))).fetch(c.req.raw, c.env, c.executionCtx as ExecutionContext);

export const oauthDiscovery = new Hono<AppEnv>();

oauthDiscovery.use("*", requireConfig, requireOAuth);
oauthDiscovery.use("/oauth-protected-resource/*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));
oauthDiscovery.use("/oauth-protected-resource", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));
const resourceMetadata = (c: Context<AppEnv>) => c.json(protectedResourceMetadata(oauthSettings(c.get("config"))));
// RFC 9728 puts it under the resource's path; some clients only look at the root, and /mcp is the only resource.
oauthDiscovery.get("/oauth-protected-resource/mcp", resourceMetadata);
oauthDiscovery.get("/oauth-protected-resource", resourceMetadata);
// RFC 8414 metadata (and the OpenID-style alias some clients try); anything else here is the library's 404.
oauthDiscovery.all("*", libraryAnswers);

export const oauthEndpoints = new Hono<AppEnv>();

oauthEndpoints.use("*", requireConfig, requireOAuth);
// A rebound name is refused here as on /mcp. Origins are not: browser-based
// clients call /oauth/token and /oauth/register cross-origin (the library's CORS).
oauthEndpoints.use("*", servedHostOnly("this OAuth server", (c, message) => errorResponse(c, { code: "forbidden", message })));
oauthEndpoints.route("/grants", grantRoutes);
oauthEndpoints.all("/token", libraryAnswers);
// Anyone may register, and each registration is a KV write: counted per client address.
oauthEndpoints.post("/register", limitPerAddress("register"));
oauthEndpoints.all("/register", libraryAnswers);
