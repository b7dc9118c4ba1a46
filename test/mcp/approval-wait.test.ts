import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator as ModernValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod/v4";
import type { WaitResultSchema } from "../../src/mcp/tools/approval-wait.tools";
import { decisionWaits } from "../helpers/account-agent";
import { CLIENT_GENERATIONS, MCP_URL, type McpTestClient, workerFetch } from "../helpers/mcp-client";
import { approve, callError, callOk, proposalFor, reject } from "../helpers/ops";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { waitFor } from "../helpers/wait-for";

// Over both protocol eras: the v1 client at 2025-11-25 and the v2 client at 2026-07-28.
describe.each(CLIENT_GENERATIONS)("$label", (generation) => {
  // The agent waits for the person instead of polling: the call is held until
  // the approval app records a decision, or a bounded timeout; a client that
  // can open links is first asked to show the person the approval page. The
  // decision itself still comes only from the approval app.

  type WaitResult = z.infer<typeof WaitResultSchema>;
  let acme: McpTestClient;
  beforeAll(async () => {
    acme = await generation.connect(ACME_TOKEN, "wait-acme");
  });
  afterAll(async () => {
    await acme.close();
  });

  describe("wait_for_approval (any client: a long poll)", () => {
    it("answers as soon as a person approves, and says what to call next", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      const waiting = callOk<WaitResult>(acme, "wait_for_approval", {
        proposal_id: proposal.proposal_id,
        timeout_seconds: 20,
      });
      // The object holds the wait before the decision is made, so the decision is what wakes it.
      expect(
        await waitFor(
          () => decisionWaits("acme", proposal.proposal_id),
          (waits) => waits === 1,
        ),
      ).toBe(1);
      await approve(proposal.proposal_id);
      const waited = await waiting;
      expect(waited).toMatchObject({ proposal_id: proposal.proposal_id, status: "approved", decided: true });
      expect(waited.waited_seconds).toBeLessThan(10);
      expect(waited.next_step).toBe(
        "A person approved it: call confirm_resolution with this proposal_id to apply it exactly once.",
      );
    });

    it("a rejection ends the wait too, with the reason", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      const waiting = callOk<WaitResult>(acme, "wait_for_approval", {
        proposal_id: proposal.proposal_id,
        timeout_seconds: 20,
      });
      // The object holds the wait before the decision is made, so the decision is what wakes it.
      expect(
        await waitFor(
          () => decisionWaits("acme", proposal.proposal_id),
          (waits) => waits === 1,
        ),
      ).toBe(1);
      await reject(proposal.proposal_id, "the customer called to cancel");
      const waited = await waiting;
      expect(waited).toMatchObject({ status: "rejected", decided: true });
      expect(waited.next_step).toContain("the customer called to cancel");
    });

    it("without a decision it answers at its timeout, still pending, and cannot approve", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      const waited = await callOk<WaitResult>(acme, "wait_for_approval", {
        proposal_id: proposal.proposal_id,
        timeout_seconds: 1,
      });
      expect(waited).toMatchObject({ status: "pending_approval", decided: false });
      expect(waited.waited_seconds).toBeGreaterThanOrEqual(0.9);
      expect(waited.next_step).toBe(
        `Still waiting for a person: call wait_for_approval again, or ask them to open ${proposal.approval_url}. Nothing can approve it from here.`,
      );
    });

    it("the timeout is bounded, and another account's proposal reads as not found", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      expect(
        await callError(acme, "wait_for_approval", { proposal_id: proposal.proposal_id, timeout_seconds: 600 }),
      ).toMatch(/timeout_seconds/);
      const globex = await generation.connect(GLOBEX_TOKEN, "wait-globex");
      try {
        expect(
          await callError(globex, "wait_for_approval", { proposal_id: proposal.proposal_id, timeout_seconds: 1 }),
        ).toBe("proposal not found; proposals are only visible to the account that created them");
      } finally {
        await globex.close();
      }
    });
  });

  describe("wait_for_approval at 2026-07-28 with URL elicitation", () => {
    it("asks the client to show the approval page (input_required); once the person has decided there, the retried call answers the decision", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      const client = new ModernClient(
        { name: "wait-2026", version: "1.0.0" },
        {
          capabilities: { elicitation: { url: {} } },
          jsonSchemaValidator: new ModernValidator(),
          versionNegotiation: { mode: { pin: "2026-07-28" } },
        },
      );
      const asked: { mode?: string; url?: string; message?: string }[] = [];
      // The host shows the page; the person approves there; then the host says it is done.
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(request.params as { mode?: string; url?: string; message?: string });
        await approve(proposal.proposal_id);
        return { action: "accept" };
      });
      await client.connect(
        new ModernTransport(new URL(MCP_URL), {
          fetch: workerFetch,
          requestInit: { headers: { authorization: `Bearer ${ACME_TOKEN}` } },
        }),
      );
      try {
        const result = (await client.callTool({
          name: "wait_for_approval",
          arguments: { proposal_id: proposal.proposal_id, timeout_seconds: 10 },
        })) as {
          structuredContent?: WaitResult;
        };
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatchObject({ mode: "url", url: proposal.approval_url });
        expect(asked[0]?.message).toContain(proposal.order_id);
        expect(result.structuredContent).toMatchObject({ status: "approved", decided: true });
      } finally {
        await client.close();
      }
    });

    it("a client that declares no URL elicitation is not asked: it waits as any client does", async () => {
      const { proposal } = await proposalFor(acme, "fulfillment_hold_missing_sku");
      const client = new ModernClient(
        { name: "wait-2026-plain", version: "1.0.0" },
        { jsonSchemaValidator: new ModernValidator(), versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(
        new ModernTransport(new URL(MCP_URL), {
          fetch: workerFetch,
          requestInit: { headers: { authorization: `Bearer ${ACME_TOKEN}` } },
        }),
      );
      try {
        const result = (await client.callTool({
          name: "wait_for_approval",
          arguments: { proposal_id: proposal.proposal_id, timeout_seconds: 1 },
        })) as { structuredContent?: WaitResult };
        expect(result.structuredContent).toMatchObject({ status: "pending_approval", decided: false });
      } finally {
        await client.close();
      }
    });
  });
});
