// The smoke run's operator story over real HTTP: list the exceptions, inspect
// one (another account cannot), propose, wait for a human, approve through the
// approver API (an MCP token cannot), confirm once, then read the audit log and
// the approver's hash-chained export.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { checkExportedChain } from "../../src/audit/chain-check.ts";
import { callTool } from "./mcp.ts";

const ACME = "acme-dev-token";
const ACME_APPROVER = "acme-approver-dev-token";

type Check = (label: string, condition: boolean, detail?: string) => void;

/** The operator story: list, inspect, propose, wait for a human, approve in the app, confirm, audit. */
export async function operatorStory(baseUrl: string, acme: Client, globex: Client, check: Check): Promise<void> {
  const listed = await callTool(acme, "list_order_exceptions");
  const exceptions = (listed.structured?.exceptions ?? []) as {
    order_id: string;
    exception_type: string;
    priority: string;
  }[];
  check(
    "list_order_exceptions lists active exceptions, P1 first",
    exceptions.length >= 5 && exceptions[0]?.priority === "P1",
    `${exceptions.length} exceptions`,
  );
  const duplicate = exceptions.find((e) => e.exception_type === "duplicate_order");
  check("the duplicate order is among them", duplicate !== undefined);
  if (!duplicate) return;
  const orderId = duplicate.order_id;

  const details = await callTool(acme, "get_order_details", { order_id: orderId });
  check(
    "get_order_details shows the duplicate evidence",
    (details.structured?.duplicate as { of_order_id?: string } | null)?.of_order_id !== undefined,
    orderId,
  );
  const hidden = await callTool(globex, "get_order_details", { order_id: orderId });
  const unknown = await callTool(globex, "get_order_details", { order_id: "ORD-0000000" });
  check(
    "another account sees 'not found', identical to an unknown id",
    hidden.isError && hidden.text === unknown.text,
    hidden.text,
  );

  const before = await callTool(acme, "get_order_status", { order_id: orderId });
  const proposal = await callTool(acme, "propose_resolution", { order_id: orderId });
  const proposalId = String(proposal.structured?.proposal_id ?? "");
  check(
    "propose_resolution picks cancel_duplicate_order",
    proposal.structured?.action === "cancel_duplicate_order" && proposal.structured?.status === "pending_approval",
    proposalId,
  );
  const after = await callTool(acme, "get_order_status", { order_id: orderId });
  check("proposing leaves the order unchanged", before.text === after.text, after.text);

  const waiting = await callTool(acme, "confirm_resolution", { proposal_id: proposalId });
  check(
    "confirm before approval answers approval_required",
    waiting.structured?.status === "approval_required",
    String(waiting.structured?.approval_url ?? ""),
  );

  const mcpTokenApproval = await fetch(`${baseUrl}/api/approvals/${proposalId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ACME}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", reason: "trying with an MCP token" }),
  });
  check("an MCP token cannot approve", mcpTokenApproval.status === 401);
  const approved = await fetch(`${baseUrl}/api/approvals/${proposalId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ACME_APPROVER}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", reason: "duplicate confirmed with the customer" }),
  });
  const approvedBody = (await approved.json()) as { proposal?: { status?: string } };
  check(
    "the approver approves through the scripted path",
    approved.status === 200 && approvedBody.proposal?.status === "approved",
    String(approved.status),
  );

  const applied = await callTool(acme, "confirm_resolution", { proposal_id: proposalId });
  check("confirm applies the approved proposal", applied.structured?.status === "applied", applied.text.slice(0, 160));
  const again = await callTool(acme, "confirm_resolution", { proposal_id: proposalId });
  const againResult = again.structured ?? {};
  check(
    "confirming again returns the identical outcome and says it was already applied",
    JSON.stringify(againResult.outcome) === JSON.stringify(applied.structured?.outcome) &&
      String(againResult.message).includes("was already applied"),
    String(againResult.message),
  );

  const audit = await callTool(acme, "get_order_audit_log", { order_id: orderId });
  const types = ((audit.structured?.events ?? []) as { event_type: string }[]).map((e) => e.event_type);
  check(
    "the audit log tells the whole story",
    ["proposal_created", "proposal_approved", "resolution_applied"].every((t) => types.includes(t)),
    types.join(", "),
  );

  const exported = await fetch(`${baseUrl}/api/audit`, { headers: { authorization: `Bearer ${ACME_APPROVER}` } });
  const trail = await exported.text();
  const chain = await checkExportedChain(trail);
  check(
    "the approver's audit export is an intact hash chain up to the head it names, with the applied change in it",
    exported.status === 200 &&
      chain.problems.length === 0 &&
      exported.headers.get("x-audit-chain-head") === `${chain.head?.seq}:${chain.head?.hash}` &&
      trail.includes(`"event_id":"${proposalId}:applied"`),
    `${chain.checked} events${chain.problems.length ? `; ${chain.problems[0]?.message}` : ""}`,
  );
}
