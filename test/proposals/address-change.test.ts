import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { DEFAULT_ADDRESS, insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { approvalApi, callError, expectWellFormed, prepareAddress, propose, storedProposal } from "../helpers/ops";
import { countAuditEvents } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // prepare_address_change: only an order that has not shipped can be
  // redirected, the address is checked and normalized, and the proposal pins
  // it; a flood of changes for one order leaves one pending proposal.

  const NEW_ADDRESS = {
    recipient: "jonas becker",
    line1: "9  HARBOR ROAD",
    line2: "unit 2",
    city: "EVANSTON",
    region: "il",
    postal_code: "602011234",
    country: "us",
  };
  const NEW_ADDRESS_NORMALIZED = {
    recipient: "Jonas Becker",
    line1: "9 Harbor Road",
    line2: "Unit 2",
    city: "Evanston",
    region: "IL",
    postal_code: "60201-1234",
    country: "US",
  };

  let acme: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "proposals-acme");
  });
  afterAll(async () => {
    await acme.close();
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
      const proposal = await prepareAddress(acme, orderId, {
        ...NEW_ADDRESS_NORMALIZED,
        city: `Evanston ${"x".repeat(71)}`,
      });
      expect(proposal.status).toBe("pending_approval");
    });

    it("a 100-character city is refused as invalid input and records nothing", async () => {
      const orderId = await insertFreshOrder({ exception: null });
      const message = await callError(acme, "prepare_address_change", {
        order_id: orderId,
        address: { ...NEW_ADDRESS_NORMALIZED, city: `Evanston ${"x".repeat(91)}` },
      });
      expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
      expect(message).toMatch(/^the address is not valid: .*address\.city/);
    });

    it("rejects an unsupported country", async () => {
      const orderId = await insertFreshOrder({ exception: null });
      expect(
        await callError(acme, "prepare_address_change", {
          order_id: orderId,
          address: { ...NEW_ADDRESS, country: "BR" },
        }),
      ).toBe(
        "the address is not valid: address.country BR is not supported; use one of US, CA, GB, DE, FR, NL, SE, AU",
      );
    });

    it("returns an inert proposal that pins the normalized address and the order's version", async () => {
      const orderId = await insertFreshOrder({ exception: null });
      const before = await readRow("acme", orderId);
      const proposal = await prepareAddress(acme, orderId, NEW_ADDRESS);
      expectWellFormed(proposal, orderId);
      expect(proposal).toMatchObject({
        kind: "address_change",
        action: "change_shipping_address",
        risk: "medium",
        pinned_version: 1,
      });
      expect(proposal.expected_changes).toEqual([
        {
          field: "shipping_address",
          before: "Test Recipient, 1 Test Street, Springfield, IL 62701, US",
          after: "Jonas Becker, 9 Harbor Road, Unit 2, Evanston, IL 60201-1234, US",
        },
      ]);
      const stored = await storedProposal("acme", proposal.proposal_id);
      expect(stored?.change).toEqual({
        kind: "address_change",
        action: "change_shipping_address",
        address: NEW_ADDRESS_NORMALIZED,
      });
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
      expect(await callError(acme, "prepare_address_change", { order_id: orderId, address: DEFAULT_ADDRESS })).toBe(
        message,
      );
      expect(
        await callError(acme, "prepare_address_change", {
          order_id: orderId,
          address: {
            recipient: "TEST RECIPIENT",
            line1: "1 test street",
            city: "springfield",
            region: "il",
            postal_code: " 62701 ",
            country: "us",
          },
        }),
      ).toBe(message);
      expect(await countAuditEvents("acme", orderId)).toBe(1); // only the fixture's origin event
    });
  });

  describe("a flood of address changes for one order", () => {
    it("leaves one pending proposal; the approval API lists it with its new address and says why the others are superseded", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposals: ProposalView[] = [];
      for (let i = 1; i <= 40; i++)
        proposals.push(await prepareAddress(acme, orderId, { ...NEW_ADDRESS, line1: `${i} Harbor Road` }));
      const newest = proposals.at(-1);

      const listed = (await (await approvalApi("", { token: ACME_APPROVER_TOKEN })).json()) as {
        proposals: ProposalView[];
      };
      const forOrder = listed.proposals.filter((p) => p.order_id === orderId);
      expect(forOrder.map((p) => p.proposal_id)).toEqual([newest?.proposal_id]);
      expect(forOrder[0]?.change_summary).toBe(
        "Ship to Jonas Becker, 40 Harbor Road, Unit 2, Evanston, IL 60201-1234, US",
      );

      const first = proposals[0];
      const shown = (await (await approvalApi(`/${first?.proposal_id}`, { token: ACME_APPROVER_TOKEN })).json()) as {
        proposal: ProposalView;
      };
      expect(shown.proposal.status).toBe("superseded");
      expect(shown.proposal.superseded_by).toBe(proposals[1]?.proposal_id);
      expect(await countAuditEvents("acme", orderId, "proposal_superseded")).toBe(39);
    });
  });
});
