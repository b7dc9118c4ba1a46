import type { MiddlewareHandler } from "hono";
import type { OAuthSettings } from "../auth/mcp-resource";
import type { Config } from "../config/config";
import type { AppEnv } from "../http/app-env";
import { errorResponse } from "../http/respond";

/**
 * OAuth routes answer 503 with the reason when the base URL cannot be an OAuth issuer (a plain-http LAN address in
 * development).
 */
export const requireOAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = c.get("config");
  if (!config.oauth) {
    return errorResponse(c, {
      code: "not_configured",
      message: `OAuth is off: its issuer, PUBLIC_BASE_URL (${config.publicBaseUrl}), must use https or be localhost; static MCP tokens still work`,
    });
  }
  await next();
};

/** The OAuth settings, for a route behind requireOAuth. */
export function oauthSettings(config: Config): OAuthSettings {
  const oauth = config.oauth;
  if (!oauth) throw new Error("requireOAuth lets no request through without OAuth settings");
  return oauth;
}
