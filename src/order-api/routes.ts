import { Hono, type Context } from "hono";
import type { Result } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { readJsonBody } from "../http/json-body";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { referenceData } from "../orders/reference-data";
import { findOrderView, storeIntakeOrder, type IntakeCaller } from "../store/intake-orders";
import { OrderRequestSchema, type Health } from "../orders/intake-schemas";
import { ensureSeedLoaded } from "../store/seed-loader";
import { findOrderProblems } from "../orders/validate-order";
import { requestAuditSeal } from "./audit-seal-request";

export const MAX_ORDER_BODY_BYTES = 64 * 1024;

/** Decides which account a request acts for, and who is acting; public and internal callers differ. */
export type CallerResolver = (c: Context<AppEnv>) => Promise<Result<IntakeCaller>>;

export function healthReport(): Health {
  return { status: "ok", skus: referenceData.skus.size, customers: referenceData.customers.size };
}

/**
 * The order intake API. The same routes serve the public /api mount and the
 * ORDER_API entrypoint; only the account resolver differs.
 */
export function orderApiRoutes(resolveCaller: CallerResolver): Hono<AppEnv> {
  const api = new Hono<AppEnv>();

  api.use("*", async (c, next) => {
    await ensureSeedLoaded(c.env.DB);
    await next();
  });

  api.get("/health", (c) => c.json(healthReport()));
  api.all("/health", methodNotAllowed(["GET"]));

  api.post("/orders", async (c) => {
    const caller = await resolveCaller(c);
    if (!caller.ok) return errorResponse(c, caller.error);
    const order = await readJsonBody(c.req.raw, OrderRequestSchema, MAX_ORDER_BODY_BYTES);
    if (!order.ok) return errorResponse(c, order.error);
    const problems = findOrderProblems(order.value, referenceData);
    if (problems.length > 0) {
      return errorResponse(c, { code: "validation_failed", message: `order rejected: ${problems.length} problem(s)`, errors: problems });
    }
    const stored = await storeIntakeOrder(c.env.DB, caller.value, order.value);
    if (!stored.ok) return errorResponse(c, stored.error);
    if (stored.value.kind === "created") requestAuditSeal(c, caller.value.account);
    return c.json(stored.value.receipt, stored.value.kind === "created" ? 201 : 200);
  });
  api.all("/orders", methodNotAllowed(["POST"]));

  api.get("/orders/:id", async (c) => {
    const caller = await resolveCaller(c);
    if (!caller.ok) return errorResponse(c, caller.error);
    const orderId = c.req.param("id");
    const view = await findOrderView(c.env.DB, caller.value.account, orderId);
    if (!view) return errorResponse(c, { code: "not_found", message: `order ${orderId} not found` });
    return c.json(view);
  });
  api.all("/orders/:id", methodNotAllowed(["GET"]));

  return api;
}
