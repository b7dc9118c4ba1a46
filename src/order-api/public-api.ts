import { Hono } from "hono";
import { publicIntakeCaller } from "../auth/intake-callers";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { originPolicy } from "../http/origin-guard";
import { orderApiRoutes } from "./routes";

/** The intake API as the public internet sees it: bearer tokens, browser origin rules and a rate limit. */
export const publicOrderApi = new Hono<AppEnv>();
publicOrderApi.use("*", requireConfig, originPolicy("this API"));
publicOrderApi.route(
  "/",
  orderApiRoutes({
    authenticate: publicIntakeCaller,
    rateLimit: { surface: "api", key: (caller) => `${caller.account}:${caller.actor}` },
  }),
);
