/**
 * The protocol side of OAuth: discovery under /.well-known, and /oauth/token
 * and /oauth/register, which the library answers (with its own CORS, since
 * browser-based clients call them). /authorize is the consent page
 * (consent.ts); /oauth/grants lets an operator list and revoke grants.
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { servedHostOnly } from "../http/origin-guard";
import { limitPerAddress } from "../http/rate-limit";
import { errorResponse } from "../http/respond";
import { authorizationServer, oauthHelpers, protectedResourceMetadata } from "./authorization-server";
import { grantRoutes } from "./grants";
import { oauthSettings, requireOAuth } from "./require-oauth";
import { guardedTokenEndpoint } from "./token-guard";

// Hono types its execution context more loosely than workers-types; it is the runtime's own object.
const libraryAnswer = (c: Context<AppEnv>, request: Request) =>
  authorizationServer(oauthSettings(c.get("config"))).fetch(request, c.env, c.executionCtx as ExecutionContext);
const libraryAnswers = (c: Context<AppEnv>) => libraryAnswer(c, c.req.raw);

/** The library's token endpoint, with refresh tokens that work once and a few PKCE tries per code (token-guard.ts). */
const tokenEndpoint = (c: Context<AppEnv>) => {
  const settings = oauthSettings(c.get("config"));
  return guardedTokenEndpoint(
    {
      kv: c.env.OAUTH_KV,
      oauth: oauthHelpers(settings, c.env),
      refreshTokenTtlSeconds: settings.refreshTokenTtlSeconds,
      answer: (request) => libraryAnswer(c, request),
    },
    c.req.raw,
  );
};

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
oauthEndpoints.use(
  "*",
  servedHostOnly("this OAuth server", (c, message) => errorResponse(c, { code: "forbidden", message })),
);
oauthEndpoints.route("/grants", grantRoutes);
oauthEndpoints.all("/token", tokenEndpoint);
// Anyone may register, and each registration is a KV write: counted per client address.
oauthEndpoints.post("/register", limitPerAddress("register"));
oauthEndpoints.all("/register", libraryAnswers);
