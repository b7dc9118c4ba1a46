/**
 * Cross-site protection for the approval app's form posts (hono/csrf): a
 * browser's post must carry our own origin, or Sec-Fetch-Site same-origin.
 * "Our own origin" is PUBLIC_BASE_URL's, never the request's Host: a
 * DNS-rebound name would make the Host match the attacker's page.
 *
 * Sec-Fetch-Site same-origin only says the page and the request share a
 * name, and a rebound page shares its own. It is trusted here because every
 * page that posts refuses a Host this Worker does not serve first
 * (servedHostOnly), so the shared name is one of ours.
 *
 * Browsers send Origin or Sec-Fetch-Site on every post; a request with neither
 * is not a browser riding a victim's cookie, so it goes on to the session and
 * CSRF-token checks like any other.
 */
import type { Context, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";

const check = csrf({
  origin: (origin: string, c: Context<AppEnv>) => origin === new URL(c.get("config").publicBaseUrl).origin,
  // "none": the user's own action (typed address, bookmark), never another site.
  secFetchSite: ["same-origin", "none"],
});

export function sameOriginForms(
  refuse: (c: Context<AppEnv>) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.header("origin") === undefined && c.req.header("sec-fetch-site") === undefined) return next();
    try {
      await check(c, async () => {});
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403) return refuse(c);
      throw error;
    }
    await next();
  };
}
