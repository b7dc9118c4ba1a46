/**
 * The scripted approval API (/api/approvals): the same decisions as the page,
 * with an approver token. MCP tokens are refused.
 */
import { Hono } from "hono";
import { approverBearer } from "../../auth/approver";
import type { Approver } from "../../config/config";
import { requireConfig } from "../../http/config-middleware";
import { requireCredential, type WithHolder } from "../../http/credential-middleware";
import { limitedBody, validJson } from "../../http/json-body";
import { originPolicy } from "../../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../../http/respond";
import { DecisionSchema } from "../../proposals/decision";

export const approvalApi = new Hono<WithHolder<Approver>>();

const MAX_DECISION_BYTES = 16 * 1024;

const approver = requireCredential<Approver>(approverBearer("approve"));

approvalApi.use("*", requireConfig, originPolicy("this API"));

approvalApi.get("/", approver, async (c) => {
  const holder = c.get("holder");
  const pending = await c.env.ACCOUNT_AGENT.getByName(holder.account).pendingProposals(holder);
  return pending.ok ? c.json({ proposals: pending.value }) : errorResponse(c, pending.error);
});
approvalApi.all("/", methodNotAllowed(["GET"]));

approvalApi.get("/:id", approver, async (c) => {
  const holder = c.get("holder");
  const review = await c.env.ACCOUNT_AGENT.getByName(holder.account).reviewProposal(holder, c.req.param("id"));
  return review.ok ? c.json({ proposal: review.value.proposal }) : errorResponse(c, review.error);
});

approvalApi.post("/:id", approver, limitedBody("json", MAX_DECISION_BYTES), validJson(DecisionSchema), async (c) => {
  const holder = c.get("holder");
  const decided = await c.env.ACCOUNT_AGENT.getByName(holder.account).decideProposal(
    holder,
    c.req.param("id"),
    c.req.valid("json"),
  );
  return decided.ok ? c.json({ proposal: decided.value }) : errorResponse(c, decided.error);
});
approvalApi.all("/:id", methodNotAllowed(["GET", "POST"]));
