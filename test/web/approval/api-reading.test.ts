import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../../src/proposals/proposal-schemas";
import { insertFreshOrder } from "../../helpers/fresh-orders";
import { connectClient } from "../../helpers/mcp-client";
import {
  approvalApi,
  approve,
  confirm,
  expireProposal,
  getProposal,
  prepareAddress,
  proposalFor,
  propose,
  reject,
  unknownProposalId,
} from "../../helpers/ops";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../../helpers/tokens";

// The scripted approval API, reading: GET /api/approvals lists what waits for
// a decision and GET /api/approvals/<id> shows one proposal, with an approver
// token. Deciding is in api.test.ts.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-api");
});
afterAll(async () => {
  await acme.close();
});

describe("reading", () => {
  it("GET /api/approvals/<id> answers the proposal exactly as get_proposal shows it", async () => {
    const { proposal } = await proposalFor(acme, "fraud_review");
    const response = await approvalApi(`/${proposal.proposal_id}`, { token: ACME_APPROVER_TOKEN });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { proposal: ProposalView };
    expect(Object.keys(body)).toEqual(["proposal"]);
    expect(body.proposal).toEqual(await getProposal(acme, proposal.proposal_id));
    expect(body.proposal).toEqual(proposal);
  });

  it("GET /api/approvals lists pending proposals newest first, and not rejected, applied or expired ones", async () => {
    const older = await proposalFor(acme, "fraud_review");
    const newer = await proposalFor(acme, "fraud_review");
    const rejected = await proposalFor(acme, "fraud_review");
    await reject(rejected.proposal.proposal_id);
    const applied = await proposalFor(acme, "fraud_review");
    await approve(applied.proposal.proposal_id);
    await confirm(acme, applied.proposal.proposal_id);
    const expired = await proposalFor(acme, "fraud_review");
    await expireProposal("acme", expired.proposal.proposal_id);

    const response = await approvalApi("", { token: ACME_APPROVER_TOKEN });
    expect(response.status).toBe(200);
    const { proposals } = (await response.json()) as { proposals: ProposalView[] };
    const ids = proposals.map((p) => p.proposal_id);
    expect(ids).toContain(older.proposal.proposal_id);
    expect(ids).toContain(newer.proposal.proposal_id);
    expect(ids.indexOf(newer.proposal.proposal_id)).toBeLessThan(ids.indexOf(older.proposal.proposal_id));
    for (const gone of [rejected, applied, expired]) expect(ids).not.toContain(gone.proposal.proposal_id);
    expect(proposals.find((p) => p.proposal_id === older.proposal.proposal_id)).toEqual(older.proposal);
    const created = proposals.map((p) => p.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });

  it("a pending proposal whose order changed is not listed as waiting", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review", status: "processing" });
    const resolution = await propose(acme, orderId);
    const address = await prepareAddress(acme, orderId, {
      recipient: "A B",
      line1: "5 Oak Lane",
      city: "Reno",
      region: "NV",
      postal_code: "89502",
      country: "US",
    });
    await approve(address.proposal_id);
    expect((await confirm(acme, address.proposal_id, "apply_approved_change")).status).toBe("applied");
    const response = await approvalApi("", { token: ACME_APPROVER_TOKEN });
    const { proposals } = (await response.json()) as { proposals: ProposalView[] };
    expect(proposals.map((p) => p.proposal_id)).not.toContain(resolution.proposal_id);
  });

  it("other methods: 405 with Allow", async () => {
    const list = await approvalApi("", { token: ACME_APPROVER_TOKEN, method: "POST", body: {} });
    expect(list.status).toBe(405);
    expect(list.headers.get("allow")).toBe("GET");
    const one = await approvalApi(`/${unknownProposalId()}`, { token: ACME_APPROVER_TOKEN, method: "DELETE" });
    expect(one.status).toBe(405);
    expect(one.headers.get("allow")).toBe("GET, POST");
  });
});
