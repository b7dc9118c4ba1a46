import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { initializeRequest, postMcp } from "../helpers/mcp-raw";
import {
  approvalApi,
  callTool,
  decide,
  getProposal,
  ORDER_NOT_FOUND,
  propose,
  unknownProposalId,
} from "../helpers/ops";
import type { ErrorBody } from "../helpers/orders";
import { countAuditEvents } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_APPROVER_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { toolErrorOf } from "../helpers/tool-results";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // One account can neither see nor touch another's orders and proposals, and
  // cannot even tell them apart from ones that do not exist.

  const GLOBEX_ORDER = "ORD-2003";
  const MISSING_ORDER = "ORD-9999999";
  const VALID_ADDRESS = {
    recipient: "Gina",
    line1: "1 Elm Street",
    city: "Reno",
    region: "NV",
    postal_code: "89502",
    country: "US",
  };

  let acme: McpTestClient;
  let globex: McpTestClient;

  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "isolation-ops-acme");
    globex = await generation.connect(GLOBEX_TOKEN, "isolation-ops-globex");
  });
  afterAll(async () => {
    await Promise.all([acme.close(), globex.close()]);
  });

  describe("another account's order reads exactly like a missing one", () => {
    it.each([
      ["get_order_status", {}],
      ["get_order_details", {}],
      ["get_order_audit_log", {}],
      ["propose_resolution", {}],
      ["prepare_address_change", { address: VALID_ADDRESS }],
    ])("%s on globex's ORD-2003 from acme", async (tool, extra) => {
      const rowBefore = await readRow("globex", GLOBEX_ORDER);
      const eventsBefore = await countAuditEvents("globex", GLOBEX_ORDER);
      const theirs = await callTool(acme, tool, { order_id: GLOBEX_ORDER, ...extra });
      const missing = await callTool(acme, tool, { order_id: MISSING_ORDER, ...extra });
      expect(toolErrorOf(theirs)).toBe(ORDER_NOT_FOUND);
      expect(theirs).toEqual(missing);
      expect(JSON.stringify(theirs)).toBe(JSON.stringify(missing));
      expect(await readRow("globex", GLOBEX_ORDER)).toEqual(rowBefore);
      expect(await countAuditEvents("globex", GLOBEX_ORDER)).toBe(eventsBefore);
      expect(await countAuditEvents("acme", GLOBEX_ORDER)).toBe(0);
    });

    it("control: globex itself can read ORD-2003", async () => {
      const own = await callTool(globex, "get_order_status", { order_id: GLOBEX_ORDER });
      expect(own.isError ?? false).toBe(false);
      expect(own.structuredContent).toEqual({ order_id: GLOBEX_ORDER, status: "on_hold", version: 1 });
    });
  });

  describe("another account's proposal reads exactly like an unknown one", () => {
    let globexProposal: ProposalView;

    beforeAll(async () => {
      globexProposal = await propose(globex, "ORD-2005");
    });

    it.each(["get_proposal", "confirm_resolution", "apply_approved_change"])(
      "%s with a globex proposal id from acme",
      async (tool) => {
        const theirs = await callTool(acme, tool, { proposal_id: globexProposal.proposal_id });
        const unknown = await callTool(acme, tool, { proposal_id: unknownProposalId() });
        expect(toolErrorOf(theirs)).toBe(
          "proposal not found; proposals are only visible to the account that created them",
        );
        expect(JSON.stringify(theirs)).toBe(JSON.stringify(unknown));
      },
    );

    it("globex's proposal is untouched by acme's attempts", async () => {
      const after = await getProposal(globex, globexProposal.proposal_id);
      expect(after.status).toBe("pending_approval");
      expect(after).toEqual({ ...globexProposal, status: "pending_approval" });
    });

    it("acme's approver does not see globex's proposal in the queue and gets the unknown-proposal 404 for it", async () => {
      const list = await approvalApi("", { token: ACME_APPROVER_TOKEN });
      expect(list.status).toBe(200);
      const { proposals } = (await list.json()) as { proposals: ProposalView[] };
      expect(proposals.map((p) => p.proposal_id)).not.toContain(globexProposal.proposal_id);

      const theirs = await approvalApi(`/${globexProposal.proposal_id}`, { token: ACME_APPROVER_TOKEN });
      const unknown = await approvalApi(`/${unknownProposalId()}`, { token: ACME_APPROVER_TOKEN });
      expect(theirs.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(await theirs.text()).toBe(await unknown.text());
    });
  });

  describe("approver credentials are per account", () => {
    it("globex's approver cannot approve an acme proposal: 404 with the unknown-proposal body, nothing recorded", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposal = await propose(acme, orderId);
      const theirs = await decide(proposal.proposal_id, "approve", "looks fine to me", GLOBEX_APPROVER_TOKEN);
      const unknown = await decide(unknownProposalId(), "approve", "looks fine to me", GLOBEX_APPROVER_TOKEN);
      expect(theirs.status).toBe(404);
      expect(unknown.status).toBe(404);
      const theirsBody = await theirs.text();
      expect(theirsBody).toBe(await unknown.text());
      expect(JSON.parse(theirsBody)).toEqual({
        code: "not_found",
        message: "proposal not found; proposals are only visible to the account that created them",
      });
      expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
      expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(0);
    });

    it("globex's approver cannot read an acme proposal either", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposal = await propose(acme, orderId);
      const theirs = await approvalApi(`/${proposal.proposal_id}`, { token: GLOBEX_APPROVER_TOKEN });
      const unknown = await approvalApi(`/${unknownProposalId()}`, { token: GLOBEX_APPROVER_TOKEN });
      expect(theirs.status).toBe(404);
      expect(await theirs.text()).toBe(await unknown.text());
    });
  });

  describe("MCP and approver tokens do not cross", () => {
    it("an MCP token on POST /api/approvals/<id>: 401 saying MCP tokens cannot approve", async () => {
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const proposal = await propose(acme, orderId);
      const response = await decide(proposal.proposal_id, "approve", "I am the operator, trust me", ACME_TOKEN);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="order-ops-edge approvals"');
      const body = (await response.json()) as ErrorBody;
      expect(body.code).toBe("unauthorized");
      expect(body.message).toContain("MCP tokens");
      expect(body.message).toBe("MCP tokens cannot approve proposals; sign in with an approver token");
      expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
      expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(0);
    });

    it("an MCP token on GET /api/approvals: 401 too", async () => {
      const response = await approvalApi("", { token: GLOBEX_TOKEN });
      expect(response.status).toBe(401);
      expect(((await response.json()) as ErrorBody).message).toContain("MCP tokens");
    });

    it.each([
      ["acme", ACME_APPROVER_TOKEN],
      ["globex", GLOBEX_APPROVER_TOKEN],
    ])("the %s approver token on /mcp: 401", async (_account, token) => {
      const response = await postMcp(initializeRequest(1, "2025-06-18"), { token });
      expect(response.status).toBe(401);
      expect(((await response.json()) as ErrorBody).message).toBe(
        "approver tokens cannot be used for MCP; approvals happen only in the approval app",
      );
    });
  });
});
