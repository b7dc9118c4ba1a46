import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireDueProposals } from "../../src/outbox/handlers";
import { connectClient } from "../helpers/mcp-client";
import { expireProposal, getProposal, proposalFor } from "../helpers/ops";
import { countAuditEvents } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// The cron trigger's expiry sweep: a proposal whose window closed is expired
// (and announced, proposal.expired) within the minute, even if nobody opens it.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "expiry-sweep");
});
afterAll(async () => {
  await acme.close();
});

describe("the expiry sweep", () => {
  it("expires an overdue proposal nobody looked at, once, and leaves proposals still in time alone", async () => {
    const overdue = await proposalFor(acme, "duplicate_order");
    const inTime = await proposalFor(acme, "duplicate_order");
    await expireProposal("acme", overdue.proposal.proposal_id);

    expect(await expireDueProposals(env)).toBeGreaterThanOrEqual(1);
    expect(await countAuditEvents("acme", overdue.orderId, "proposal_expired")).toBe(1);
    expect(await countAuditEvents("acme", inTime.orderId, "proposal_expired")).toBe(0);

    // A second sweep finds nothing more to do for it.
    await expireDueProposals(env);
    expect(await countAuditEvents("acme", overdue.orderId, "proposal_expired")).toBe(1);
    expect((await getProposal(acme, overdue.proposal.proposal_id)).status).toBe("expired");
    expect((await getProposal(acme, inTime.proposal.proposal_id)).status).toBe("pending_approval");
  });
});
