import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/schemas";
import { ACME_TOKEN, connectClient } from "../helpers/mcp-client";
import {
  ACME_APPROVER,
  ACME_APPROVER_TOKEN,
  ACME_OPERATOR,
  approvalApi,
  approve,
  BASE_URL,
  callError,
  countAuditEvents,
  getProposal,
  prepareAddress,
  PROPOSAL_TTL_MS,
  propose,
  reject,
  storedProposal,
  unknownProposalId,
} from "../helpers/ops";
import { DEFAULT_ADDRESS, insertFreshOrder, readRow } from "../helpers/fresh-orders";

// Proposals are inert: creating one writes an audit event and nothing else,
// and asking again for the same change returns the same proposal.

const NEW_ADDRESS = { recipient: "jonas becker", line1: "9  HARBOR ROAD", line2: "unit 2", city: "EVANSTON", region: "il", postal_code: "602011234", country: "us" };
const NEW_ADDRESS_NORMALIZED = { recipient: "Jonas Becker", line1: "9 Harbor Road", line2: "Unit 2", city: "Evanston", region: "IL", postal_code: "60201-1234", country: "US" };

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "proposals-acme");
});
afterAll(async () => {
  await acme.close();
});

function expectWellFormed(proposal: ProposalView, orderId: string): void {
  expect(proposal.proposal_id).toMatch(/^prop_[A-Za-z0-9_-]{20}$/);
  expect(proposal.order_id).toBe(orderId);
  expect(proposal.status).toBe("pending_approval");
  expect(proposal.approval_url).toBe(`${BASE_URL}/approvals/${proposal.proposal_id}`);
  expect(proposal.approval_url.endsWith(`/approvals/${proposal.proposal_id}`)).toBe(true);
  expect(Date.parse(proposal.expires_at) - Date.parse(proposal.created_at)).toBe(PROPOSAL_TTL_MS);
  expect(Math.abs(Date.parse(proposal.created_at) - Date.now())).toBeLessThan(60_000);
  expect(proposal.created_by).toBe(ACME_OPERATOR);
  expect(proposal.expected_changes.length).toBeGreaterThan(0);
  expect(proposal).toMatchObject({ decided_by: null, decided_at: null, decision_reason: null, outcome: null });
  // The pinned change is shown, so a reader sees exactly what will be applied.
  if (proposal.kind === "resolution") expect(proposal.change).toEqual({ kind: "resolution", action: proposal.action });
  else expect(proposal.change).toMatchObject({ kind: "address_change", action: "change_shipping_address" });
}

describe("propose_resolution", () => {
  it.each([
    ["ORD-1017", "cancel_duplicate_order", "high"],
    ["ORD-1004", "release_inventory_hold_and_cancel_order", "high"],
    ["ORD-1008", "notify_customer_backorder", "medium"],
    ["ORD-1014", "retry_fulfillment", "medium"],
    ["ORD-1011", "escalate_to_human", "low"],
  ])("%s gets %s at %s risk and stays byte-identical in D1", async (orderId, action, risk) => {
    const before = await readRow("acme", orderId);
    const proposal = await propose(acme, orderId);
    expectWellFormed(proposal, orderId);
    expect(proposal).toMatchObject({ kind: "resolution", action, risk, pinned_version: 1 });
    expect(await readRow("acme", orderId)).toEqual(before);
  });

  it("the expected changes spell out every field the action touches (ORD-1004)", async () => {
    const proposal = await propose(acme, "ORD-1004");
    expect(proposal.expected_changes).toEqual([
      { field: "status", before: "payment_failed", after: "cancelled" },
      { field: "exception", before: "payment_declined_inventory_held active (Payments Ops)", after: "payment_declined_inventory_held resolved (Payments Ops)" },
      { field: "inventory", before: "SKU-4415 x2 held (ATL-2); SKU-1180 x1 held (ATL-2)", after: "SKU-4415 x2 released (ATL-2); SKU-1180 x1 released (ATL-2)" },
      { field: "fulfillment", before: "blocked: waiting for payment", after: "cancelled: cancelled after payment was declined; held stock released" },
    ]);
    expect(proposal.evidence).toContain("payment declined 2 time(s): insufficient_funds, insufficient_funds");
  });

  it("asking again for the same order at the same version returns the same proposal, and records one proposal_created", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const first = await propose(acme, orderId);
    const again = await propose(acme, orderId);
    const third = await propose(acme, orderId);
    expect(again.proposal_id).toBe(first.proposal_id);
    expect(third).toEqual(first);
    expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(1);
    expect(await countAuditEvents("acme", orderId)).toBe(2); // the fixture's origin event and proposal_created
  });

  it("10 concurrent requests for the same order open one proposal", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_hold_missing_sku" });
    const proposals = await Promise.all(Array.from({ length: 10 }, () => propose(acme, orderId)));
    expect(new Set(proposals.map((p) => p.proposal_id)).size).toBe(1);
    expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(1);
  });

  it("an approved proposal is still the open one: asking again returns it, approved", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const first = await propose(acme, orderId);
    await approve(first.proposal_id);
    const again = await propose(acme, orderId);
    expect(again.proposal_id).toBe(first.proposal_id);
    expect(again.status).toBe("approved");
  });

  it("after a rejection, asking again opens a new proposal", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const first = await propose(acme, orderId);
    await reject(first.proposal_id);
    const second = await propose(acme, orderId);
    expect(second.proposal_id).not.toBe(first.proposal_id);
    expect(second.status).toBe("pending_approval");
    expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(2);
  });

  it("an order without an exception is refused and nothing is recorded", async () => {
    const before = await readRow("acme", "ORD-1001");
    const eventsBefore = await countAuditEvents("acme", "ORD-1001");
    expect(await callError(acme, "propose_resolution", { order_id: "ORD-1001" })).toBe(
      "order ORD-1001 has no active exception (it has no exception), so there is nothing to resolve",
    );
    expect(await readRow("acme", "ORD-1001")).toEqual(before);
    expect(await countAuditEvents("acme", "ORD-1001")).toBe(eventsBefore);
  });

  it.each(["resolved", "escalated"] as const)("an order whose exception is already %s is refused", async (state) => {
    const orderId = await insertFreshOrder({ exception: "fraud_review", exceptionState: state });
    expect(await callError(acme, "propose_resolution", { order_id: orderId })).toBe(
      `order ${orderId} has no active exception (its exception is already ${state}), so there is nothing to resolve`,
    );
    expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
  });

  it("the proposal is stored with its pinned change; the view hides it", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" });
    const proposal = await propose(acme, orderId);
    const stored = await storedProposal("acme", proposal.proposal_id);
    const { approval_url: _url, change_summary: _summary, ...viewWithoutUrl } = proposal;
    expect(stored).toEqual({ ...viewWithoutUrl, change: { kind: "resolution", action: "retry_fulfillment" } });
  });
});

describe("prepare_address_change", () => {
  it.each([
    ["ORD-1001", "delivered"],
    ["ORD-1005", "shipped"],
    ["ORD-1014", "partially_shipped"],
  ])("refuses %s, which is %s", async (orderId, status) => {
    const before = await readRow("acme", orderId);
    const eventsBefore = await countAuditEvents("acme", orderId);
    expect(await callError(acme, "prepare_address_change", { order_id: orderId, address: NEW_ADDRESS })).toBe(
      `order ${orderId} is ${status}; its shipping address can no longer change`,
    );
    expect(await readRow("acme", orderId)).toEqual(before);
    expect(await countAuditEvents("acme", orderId)).toBe(eventsBefore);
  });

  it("refuses a cancelled order", async () => {
    const orderId = await insertFreshOrder({ exception: null, status: "cancelled" });
    expect(await callError(acme, "prepare_address_change", { order_id: orderId, address: NEW_ADDRESS })).toBe(
      `order ${orderId} is cancelled; its shipping address can no longer change`,
    );
  });

  it("rejects an invalid address with every problem at once and records nothing", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const message = await callError(acme, "prepare_address_change", {
      order_id: orderId,
      address: { recipient: " ", line1: "1 Main St", city: "", region: "Oregon", postal_code: "123", country: "US" },
    });
    expect(message).toBe(
      "the address is not valid: address.recipient is required; address.city is required; address.postal_code 123 is not a valid US postal code (expected 12345 or 12345-6789); address.region OREGON should be a 2-3 letter US state or province code",
    );
    expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
  });

  it("a city of 80 characters is accepted", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const proposal = await prepareAddress(acme, orderId, { ...NEW_ADDRESS_NORMALIZED, city: `Evanston ${"x".repeat(71)}` });
    expect(proposal.status).toBe("pending_approval");
  });

  it("a 100-character city is refused as invalid input and records nothing", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const message = await callError(acme, "prepare_address_change", { order_id: orderId, address: { ...NEW_ADDRESS_NORMALIZED, city: `Evanston ${"x".repeat(91)}` } });
    expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
    expect(message).toMatch(/^the address is not valid: .*address\.city/);
  });

  it("rejects an unsupported country", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    expect(await callError(acme, "prepare_address_change", { order_id: orderId, address: { ...NEW_ADDRESS, country: "BR" } })).toBe(
      "the address is not valid: address.country BR is not supported; use one of US, CA, GB, DE, FR, NL, SE, AU",
    );
  });

  it("returns an inert proposal that pins the normalized address and the order's version", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const before = await readRow("acme", orderId);
    const proposal = await prepareAddress(acme, orderId, NEW_ADDRESS);
    expectWellFormed(proposal, orderId);
    expect(proposal).toMatchObject({ kind: "address_change", action: "change_shipping_address", risk: "medium", pinned_version: 1 });
    expect(proposal.expected_changes).toEqual([
      {
        field: "shipping_address",
        before: "Test Recipient, 1 Test Street, Springfield, IL 62701, US",
        after: "Jonas Becker, 9 Harbor Road, Unit 2, Evanston, IL 60201-1234, US",
      },
    ]);
    const stored = await storedProposal("acme", proposal.proposal_id);
    expect(stored?.change).toEqual({ kind: "address_change", action: "change_shipping_address", address: NEW_ADDRESS_NORMALIZED });
    // The tool answer shows the pinned, normalized address itself.
    expect(proposal.change).toEqual(stored?.change);
    expect(await readRow("acme", orderId)).toEqual(before);
    expect(await countAuditEvents("acme", orderId, "proposal_created")).toBe(1);
  });

  it("another spelling of the same new address returns the same proposal; a different address a new one", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const first = await prepareAddress(acme, orderId, NEW_ADDRESS);
    const respelled = await prepareAddress(acme, orderId, { ...NEW_ADDRESS_NORMALIZED, line1: "  9 harbor road " });
    expect(respelled.proposal_id).toBe(first.proposal_id);
    const other = await prepareAddress(acme, orderId, { ...NEW_ADDRESS_NORMALIZED, line2: "Unit 3" });
    expect(other.proposal_id).not.toBe(first.proposal_id);
  });

  it("an address change and a resolution on one order are separate proposals", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const resolution = await propose(acme, orderId);
    const address = await prepareAddress(acme, orderId, NEW_ADDRESS);
    expect(address.proposal_id).not.toBe(resolution.proposal_id);
    // An order under fraud review is a riskier place to redirect a parcel.
    expect(address.risk).toBe("high");
  });

  it("the address already on file (in any spelling) is refused: there is nothing to change", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const message = `order ${orderId} already ships to that address; there is nothing to change`;
    expect(await callError(acme, "prepare_address_change", { order_id: orderId, address: DEFAULT_ADDRESS })).toBe(message);
    expect(
      await callError(acme, "prepare_address_change", {
        order_id: orderId,
        address: { recipient: "TEST RECIPIENT", line1: "1 test street", city: "springfield", region: "il", postal_code: " 62701 ", country: "us" },
      }),
    ).toBe(message);
    expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
  });
});

describe("get_proposal", () => {
  it("follows a proposal from pending_approval to approved, with who, when and why", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposal = await propose(acme, orderId);
    expect(await getProposal(acme, proposal.proposal_id)).toEqual(proposal);
    await approve(proposal.proposal_id, "fraud team agrees");
    const approved = await getProposal(acme, proposal.proposal_id);
    expect(approved).toEqual({
      ...proposal,
      status: "approved",
      decided_by: ACME_APPROVER,
      decided_at: approved.decided_at,
      decision_reason: "fraud team agrees",
    });
    expect(Date.parse(approved.decided_at ?? "")).toBeGreaterThanOrEqual(Date.parse(proposal.created_at));
  });

  it("shows rejected proposals as rejected", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposal = await propose(acme, orderId);
    await reject(proposal.proposal_id, "needs a specialist");
    expect(await getProposal(acme, proposal.proposal_id)).toMatchObject({ status: "rejected", decided_by: ACME_APPROVER, decision_reason: "needs a specialist", outcome: null });
  });

  it("an unknown proposal id is a tool error", async () => {
    expect(await callError(acme, "get_proposal", { proposal_id: unknownProposalId() })).toBe(
      "proposal not found; proposals are only visible to the account that created them",
    );
  });
});

describe("a flood of address changes for one order", () => {
  it("leaves one pending proposal; the approval API lists it with its new address and says why the others are superseded", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposals: ProposalView[] = [];
    for (let i = 1; i <= 40; i++) proposals.push(await prepareAddress(acme, orderId, { ...NEW_ADDRESS, line1: `${i} Harbor Road` }));
    const newest = proposals.at(-1);

    const listed = (await (await approvalApi("", { token: ACME_APPROVER_TOKEN })).json()) as { proposals: ProposalView[] };
    const forOrder = listed.proposals.filter((p) => p.order_id === orderId);
    expect(forOrder.map((p) => p.proposal_id)).toEqual([newest?.proposal_id]);
    expect(forOrder[0]?.change_summary).toBe("Ship to Jonas Becker, 40 Harbor Road, Unit 2, Evanston, IL 60201-1234, US");

    const first = proposals[0];
    const shown = (await (await approvalApi(`/${first?.proposal_id}`, { token: ACME_APPROVER_TOKEN })).json()) as { proposal: ProposalView };
    expect(shown.proposal.status).toBe("superseded");
    expect(shown.proposal.superseded_by).toBe(proposals[1]?.proposal_id);
    expect(await countAuditEvents("acme", orderId, "proposal_superseded")).toBe(39);
  });
});
