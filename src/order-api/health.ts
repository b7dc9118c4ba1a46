import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { methodNotAllowed } from "../http/respond";
import type { Health } from "../orders/intake-schemas";
import { referenceData } from "../orders/reference-data";

export function healthReport(): Health {
  return { status: "ok", skus: referenceData.skus.size, customers: referenceData.customers.size };
}

/** Public liveness: no auth, no secrets, and no config needed to answer. */
export const healthRoutes = new Hono<AppEnv>();
healthRoutes.get("/", (c) => c.json(healthReport()));
healthRoutes.all("/", methodNotAllowed(["GET"]));
