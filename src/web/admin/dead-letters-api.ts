/**
 * /api/dead-letters: the webhook deliveries that gave up (a receiver that
 * refused, or kept failing past the retry limit), for an admin to inspect and
 * replay by hand. Only an approver token with the admin role reads them: the
 * bodies name orders and the people who decided on them.
 */
import { Hono } from "hono";
import { z } from "zod/v4";
import { approverBearer } from "../../auth/approver";
import type { Approver } from "../../config/config";
import { roleOf } from "../../config/token-maps";
import { requireConfig } from "../../http/config-middleware";
import { requireCredential, type WithHolder } from "../../http/credential-middleware";
import { originPolicy } from "../../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../../http/respond";
import { accountDatabase } from "../../store/databases";
import { countDeadLetters, listDeadLetters } from "../../store/outbox-delivery";

export const deadLettersApi = new Hono<WithHolder<Approver>>();

const LimitSchema = z.coerce.number().int().min(1).max(200).default(50);

deadLettersApi.use(
  "*",
  requireConfig,
  originPolicy("this API"),
  requireCredential<Approver>(approverBearer("dead-letters")),
);

deadLettersApi.get("/", async (c) => {
  const holder = c.get("holder");
  if (roleOf(holder) !== "admin") {
    return errorResponse(c, {
      code: "forbidden",
      message: `reading the dead letters needs the admin role; ${holder.approver} has the ${roleOf(holder)} role`,
    });
  }
  const limit = LimitSchema.safeParse(c.req.query("limit"));
  if (!limit.success)
    return errorResponse(c, { code: "bad_request", message: "limit must be a whole number from 1 to 200" });
  const db = accountDatabase(c.env, holder.account);
  const [deadLetters, total] = await Promise.all([
    listDeadLetters(db, holder.account, limit.data),
    countDeadLetters(db, holder.account),
  ]);
  return c.json({ total, dead_letters: deadLetters });
});
deadLettersApi.all("/", methodNotAllowed(["GET"]));
