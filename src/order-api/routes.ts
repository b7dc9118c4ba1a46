import { Hono } from "hono";
import { type CredentialCheck, requireCredential, type WithHolder } from "../http/credential-middleware";
import { bookmarkFromRequest, withNextBookmark } from "../http/d1-bookmark";
import { limitedBody, validJson } from "../http/json-body";
import { errorResponse, methodNotAllowed, sizedJson } from "../http/respond";
import type { IntakeCaller } from "../orders/intake-schemas";
import { OrderRequestSchema } from "../orders/intake-schemas";
import { referenceData } from "../orders/reference-data";
import { findOrderProblems } from "../orders/validate-order";
import { findOrderView, storeIntakeOrder } from "../store/intake-orders";
import { accountReads } from "../store/read-session";
import { requestAuditSeal } from "./audit-seal-request";
import { intakeFaults } from "./fault-injection";
import { healthReport } from "./health";

const MAX_ORDER_BODY_BYTES = 64 * 1024;

/**
 * The order intake API. The same routes serve the public /api mount and the
 * ORDER_API entrypoint; only the caller check differs (a bearer token, or the
 * account the binding names) and only the public mount is rate limited.
 */
export function orderApiRoutes(callers: CredentialCheck<IntakeCaller>): Hono<WithHolder<IntakeCaller>> {
  const api = new Hono<WithHolder<IntakeCaller>>();
  const caller = requireCredential(callers);

  api.get("/health", (c) => c.json(healthReport()));
  api.all("/health", methodNotAllowed(["GET"]));

  // Faults come first: a frozen API holds every order, whoever sends it.
  api.post(
    "/orders",
    intakeFaults(),
    caller,
    limitedBody("json", MAX_ORDER_BODY_BYTES),
    validJson(OrderRequestSchema),
    async (c) => {
      const order = c.req.valid("json");
      const problems = findOrderProblems(order, referenceData);
      if (problems.length > 0) {
        return errorResponse(c, {
          code: "validation_failed",
          message: `order rejected: ${problems.length} problem(s)`,
          errors: problems,
        });
      }
      // Written through a read session, so the answer hands on a bookmark past this order (http/d1-bookmark.ts).
      const reads = accountReads(c.env, c.get("holder").account, bookmarkFromRequest(c.req.raw.headers));
      const stored = await storeIntakeOrder(reads, c.get("holder"), order);
      if (!stored.ok) return withNextBookmark(errorResponse(c, stored.error), reads.nextBookmark());
      if (stored.value.kind === "created") requestAuditSeal(c, c.get("holder").account);
      return withNextBookmark(
        sizedJson(c, stored.value.receipt, stored.value.kind === "created" ? 201 : 200),
        reads.nextBookmark(),
      );
    },
  );
  api.all("/orders", methodNotAllowed(["POST"]));

  api.get("/orders/:id", caller, async (c) => {
    const orderId = c.req.param("id");
    const reads = accountReads(c.env, c.get("holder").account, bookmarkFromRequest(c.req.raw.headers));
    const view = await findOrderView(reads, c.get("holder").account, orderId);
    if (!view)
      return withNextBookmark(
        errorResponse(c, { code: "not_found", message: `order ${orderId} not found` }),
        reads.nextBookmark(),
      );
    return withNextBookmark(c.json(view), reads.nextBookmark());
  });
  api.all("/orders/:id", methodNotAllowed(["GET"]));

  return api;
}
