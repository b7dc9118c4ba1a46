import { describe, expect, it } from "vitest";
import type { ConfirmResult, ProposalView } from "../../src/proposals/proposal-schemas";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { workerFetch } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { BASE_URL } from "../helpers/ops";
import { ACME_TOKEN } from "../helpers/tokens";

// Approval links must not be built from the request: `Host: attacker.example`
// on propose_resolution would give http://attacker.example/approvals/prop_…,
// and `Host: x@y` http://y/…. Links come from PUBLIC_BASE_URL (BASE_URL in the
// test configuration) instead. Every name below is served in development, so
// the call reaches the tool; only the link could tell which name it came by.

/**
 * Where the client thinks the server is: the request's URL and its Host
 * header, as the runtime sees them. `x@localhost` alone cannot catch a
 * Host-built link (it would come out as http://localhost, which BASE_URL is);
 * the others do, and were checked to fail on the code before the fix.
 */
const SERVED_NAMES = [
  "http://127.0.0.1",
  "http://x@localhost",
  "http://x@localhost:8787",
  "http://x@127.0.0.1:8787",
  "http://[::1]:8787",
];

function hostOf(base: string): string {
  return base.slice("http://".length);
}

async function callVia<T>(base: string, name: string, args: Record<string, unknown>): Promise<T> {
  const response = await workerFetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...mcpHeaders({ token: ACME_TOKEN, accept: "application/json" }), host: hostOf(base) },
    body: JSON.stringify(rpc(1, "tools/call", { name, arguments: args })),
  });
  expect(response.status).toBe(200);
  const message = (await response.json()) as JsonRpcMessage;
  const result = message.result as { structuredContent?: T; isError?: boolean } | undefined;
  expect(result?.isError, JSON.stringify(message)).not.toBe(true);
  return result?.structuredContent as T;
}

describe("approval links", () => {
  it.each(SERVED_NAMES)(
    "propose_resolution, get_proposal and confirm_resolution reached through %s all link to PUBLIC_BASE_URL",
    async (base) => {
      const orderId = await insertFreshOrder({ exception: "payment_declined_inventory_held" });
      const proposal = await callVia<ProposalView>(base, "propose_resolution", { order_id: orderId });
      const link = `${BASE_URL}/approvals/${proposal.proposal_id}`;
      expect(proposal.approval_url).toBe(link);
      expect(
        (await callVia<ProposalView>(base, "get_proposal", { proposal_id: proposal.proposal_id })).approval_url,
      ).toBe(link);
      const confirm = await callVia<ConfirmResult>(base, "confirm_resolution", { proposal_id: proposal.proposal_id });
      expect(confirm.status).toBe("approval_required");
      expect(confirm.approval_url).toBe(link);
      expect(confirm.message).toContain(`approve this proposal at ${link} before`);
    },
  );

  it("prepare_address_change reached through 127.0.0.1 links to PUBLIC_BASE_URL too", async () => {
    const orderId = await insertFreshOrder({ exception: null });
    const address = {
      recipient: "Jonas Becker",
      line1: "12 Pine St",
      line2: null,
      city: "Austin",
      region: "TX",
      postal_code: "78701",
      country: "US",
    };
    const proposal = await callVia<ProposalView>("http://127.0.0.1:8787", "prepare_address_change", {
      order_id: orderId,
      address,
    });
    expect(proposal.approval_url).toBe(`${BASE_URL}/approvals/${proposal.proposal_id}`);
  });
});
