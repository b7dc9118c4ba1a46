import type { MiddlewareHandler } from "hono";
import { loadConfig } from "../config/config";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

/** Routes behind this answer 503 with the readable config problem until it is fixed. */
export const requireConfig: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = loadConfig(c.env);
  if (!config.ok) return errorResponse(c, config.error);
  c.set("config", config.value);
  await next();
};
