import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPersonId } from "../../../src/config/token-maps";
import type { ProposalView } from "../../../src/proposals/proposal-schemas";
import { refusal } from "../../../src/proposals/sentences";
import { connectClient, workerFetch } from "../../helpers/mcp-client";
import {
  ACME_APPROVER,
  approvalApi,
  approve,
  auditLog,
  BASE_URL,
  confirm,
  decide,
  getProposal,
  proposalFor,
  reject,
  unknownProposalId,
} from "../../helpers/ops";
import type { ErrorBody } from "../../helpers/orders";
import { countAuditEvents } from "../../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../../helpers/tokens";

// The scripted approval API: /api/approvals with an approver token, deciding
// a proposal and what it refuses. Reading proposals is in api-reading.test.ts.

const CHALLENGE = 'Bearer realm="order-ops-edge approvals"';

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-api");
});
afterAll(async () => {
  await acme.close();
});

async function errorOf(response: Response, status: number): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as ErrorBody;
}

describe("authentication", () => {
  let proposalId: string;
  beforeAll(async () => {
    proposalId = (await proposalFor(acme, "fraud_review")).proposal.proposal_id;
  });

  it.each([
    ["GET /api/approvals", () => approvalApi("")],
    ["GET /api/approvals/<id>", () => approvalApi(`/${proposalId}`)],
    [
      "POST /api/approvals/<id>",
      () => approvalApi(`/${proposalId}`, { body: { decision: "approve", reason: "no token" } }),
    ],
  ])("%s without a token: 401 with a Bearer challenge", async (_label, send) => {
    const response = await send();
    expect(response.headers.get("www-authenticate")).toBe(CHALLENGE);
    expect(await errorOf(response, 401)).toEqual({
      code: "unauthorized",
      message: "send Authorization: Bearer <approver token>",
    });
  });

  it("a wrong token: 401 with a Bearer challenge", async () => {
    const response = await decide(proposalId, "approve", "wrong token", "not-an-approver-token");
    expect(response.headers.get("www-authenticate")).toBe(CHALLENGE);
    expect(await errorOf(response, 401)).toEqual({
      code: "unauthorized",
      message: "that is not a valid approver token",
    });
  });

  it("a token that is a prefix of the approver token is refused", async () => {
    const response = await decide(proposalId, "approve", "prefix token", ACME_APPROVER_TOKEN.slice(0, -1));
    expect(response.status).toBe(401);
  });

  it("a non-Bearer Authorization header counts as no token", async () => {
    const basic = await fetchWithAuthorization(`Basic ${btoa(`avery:${ACME_APPROVER_TOKEN}`)}`);
    expect(basic.headers.get("www-authenticate")).toBe(CHALLENGE);
    expect(await errorOf(basic, 401)).toEqual({
      code: "unauthorized",
      message: "send Authorization: Bearer <approver token>",
    });
  });

  it("refused attempts change nothing", async () => {
    expect((await getProposal(acme, proposalId)).status).toBe("pending_approval");
    expect(await countAuditEvents("acme", (await getProposal(acme, proposalId)).order_id, "proposal_approved")).toBe(0);
  });
});

function fetchWithAuthorization(authorization: string): Promise<Response> {
  return workerFetch(`${BASE_URL}/api/approvals`, { headers: { authorization } });
}

describe("request bodies", () => {
  let orderId: string;
  let proposalId: string;
  beforeAll(async () => {
    const fresh = await proposalFor(acme, "fraud_review");
    orderId = fresh.orderId;
    proposalId = fresh.proposal.proposal_id;
  });

  it("a missing reason: 422 naming the field", async () => {
    const body = await errorOf(
      await approvalApi(`/${proposalId}`, { token: ACME_APPROVER_TOKEN, body: { decision: "approve" } }),
      422,
    );
    expect(body.code).toBe("validation_failed");
    expect(body.errors?.some((e) => e.includes("reason"))).toBe(true);
  });

  it("a reason shorter than 3 characters (after trimming): 422", async () => {
    const body = await errorOf(await decide(proposalId, "approve", "  ok  "), 422);
    expect(body.errors?.join(" ")).toContain("give a reason of at least 3 characters");
  });

  it("a reason over 500 characters: 422", async () => {
    await errorOf(await decide(proposalId, "approve", "x".repeat(501)), 422);
  });

  it.each(["maybe", "APPROVE", "approved", ""])("an unknown decision %j: 422 naming the field", async (decision) => {
    const body = await errorOf(await decide(proposalId, decision, "a good reason"), 422);
    expect(body.code).toBe("validation_failed");
    expect(body.errors?.some((e) => e.includes("decision"))).toBe(true);
  });

  it("malformed JSON: 400; a non-JSON content type: 415", async () => {
    expect(
      (await errorOf(await approvalApi(`/${proposalId}`, { token: ACME_APPROVER_TOKEN, rawBody: "{decision:" }), 400))
        .code,
    ).toBe("malformed_json");
    const form = await approvalApi(`/${proposalId}`, {
      token: ACME_APPROVER_TOKEN,
      rawBody: "decision=approve&reason=fine",
      contentType: "application/x-www-form-urlencoded",
    });
    expect((await errorOf(form, 415)).code).toBe("unsupported_media_type");
  });

  it("none of the bad bodies decided anything", async () => {
    expect((await getProposal(acme, proposalId)).status).toBe("pending_approval");
    expect(await countAuditEvents("acme", orderId)).toBe(2); // the fixture's origin event and proposal_created
  });
});

describe("deciding", () => {
  it("an unknown proposal id: 404", async () => {
    expect(await errorOf(await decide(unknownProposalId(), "approve", "does not exist"), 404)).toEqual({
      code: "not_found",
      message: "proposal not found; proposals are only visible to the account that created them",
    });
    expect((await approvalApi(`/${unknownProposalId()}`, { token: ACME_APPROVER_TOKEN })).status).toBe(404);
  });

  it("approve answers the approved proposal and records proposal_approved with the approver's name and the reason", async () => {
    const { orderId, proposal } = await proposalFor(acme, "fraud_review");
    const response = await decide(proposal.proposal_id, "approve", "  fraud team agrees  ");
    expect(response.status).toBe(200);
    const { proposal: approved } = (await response.json()) as { proposal: ProposalView };
    expect(approved).toEqual({
      ...proposal,
      status: "approved",
      decided_by: ACME_APPROVER,
      decided_at: approved.decided_at,
      decision_reason: "fraud team agrees",
      approvals: [
        {
          approver: ACME_APPROVER,
          approver_id: defaultPersonId(ACME_APPROVER_TOKEN),
          at: approved.decided_at,
          reason: "fraud team agrees",
        },
      ],
    });
    const event = (await auditLog(acme, orderId)).events.find((e) => e.event_type === "proposal_approved");
    expect(event).toMatchObject({
      event_id: `${proposal.proposal_id}:approved`,
      actor_kind: "approver",
      actor: ACME_APPROVER,
      reason: "fraud team agrees",
      proposal_id: proposal.proposal_id,
      at: approved.decided_at,
    });
  });

  it("approving twice is idempotent: 200 both times, the same decision, one audit event", async () => {
    const { orderId, proposal } = await proposalFor(acme, "fraud_review");
    const first = await approve(proposal.proposal_id, "first approval");
    const second = await decide(proposal.proposal_id, "approve", "second approval");
    expect(second.status).toBe(200);
    expect(((await second.json()) as { proposal: ProposalView }).proposal).toEqual(first);
    expect(first.decision_reason).toBe("first approval");
    expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(1);
  });

  it("approve then reject: 409, and the proposal stays approved", async () => {
    const { orderId, proposal } = await proposalFor(acme, "fraud_review");
    await approve(proposal.proposal_id);
    const body = await errorOf(await decide(proposal.proposal_id, "reject", "changed my mind"), 409);
    expect(body).toEqual({
      code: "conflict",
      message: refusal({ ...proposal, status: "approved", decided_by: ACME_APPROVER }, "decided"),
    });
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("approved");
    expect(await countAuditEvents("acme", orderId, "proposal_rejected")).toBe(0);
  });

  it("reject records proposal_rejected with the approver's name and the reason; rejecting again is idempotent; approving then is 409", async () => {
    const { orderId, proposal } = await proposalFor(acme, "fraud_review");
    const rejected = await reject(proposal.proposal_id, "needs a fraud specialist");
    expect(rejected).toMatchObject({ decided_by: ACME_APPROVER, decision_reason: "needs a fraud specialist" });
    expect((await decide(proposal.proposal_id, "reject", "again")).status).toBe(200);
    const late = await errorOf(await decide(proposal.proposal_id, "approve", "on second thought"), 409);
    expect(late.message).toBe(
      refusal(
        { ...proposal, status: "rejected", decided_by: ACME_APPROVER, decision_reason: "needs a fraud specialist" },
        "applied",
      ),
    );
    const events = (await auditLog(acme, orderId)).events.filter((e) => e.event_type.startsWith("proposal_"));
    expect(events.map((e) => [e.event_type, e.actor, e.reason])).toEqual([
      [
        "proposal_created",
        "Ada Ops (acme, local dev)",
        `escalate_to_human proposed (low risk): ${proposal.change_summary}. ${proposal.rationale}`,
      ],
      ["proposal_rejected", ACME_APPROVER, "needs a fraud specialist"],
    ]);
  });

  it("approve and reject at the same moment: exactly one wins, the other is 409, one decision is recorded", async () => {
    const { orderId, proposal } = await proposalFor(acme, "fraud_review");
    const [approval, rejection] = await Promise.all([
      decide(proposal.proposal_id, "approve", "race approve"),
      decide(proposal.proposal_id, "reject", "race reject"),
    ]);
    expect([approval.status, rejection.status].sort()).toEqual([200, 409]);
    const winner = approval.status === 200 ? "approved" : "rejected";
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe(winner);
    expect(
      (await countAuditEvents("acme", orderId, "proposal_approved")) +
        (await countAuditEvents("acme", orderId, "proposal_rejected")),
    ).toBe(1);
  });

  it("an applied proposal can no longer be decided: 409", async () => {
    const { proposal } = await proposalFor(acme, "fraud_review");
    await approve(proposal.proposal_id);
    const applied = await confirm(acme, proposal.proposal_id);
    expect(applied.status).toBe("applied");
    const body = await errorOf(await decide(proposal.proposal_id, "reject", "too late"), 409);
    expect(body.message).toBe(refusal({ ...proposal, status: "applied", outcome: applied.outcome }, "decided"));
    // Approving the already-applied proposal is not "already approved" either.
    expect((await decide(proposal.proposal_id, "approve", "again")).status).toBe(409);
  });
});
