import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { AccountAgent } from "../../src/account/account-agent";
import type { OutboxMessage } from "../../src/outbox/messages";
import { applyKey } from "../../src/proposals/apply-key";
import { STUB_PROVIDER } from "../../src/provider/stub-provider";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { value } from "../helpers/results";
import { countApplied, countRows } from "../helpers/rows";
import { webhookVars } from "../helpers/webhooks";

// The reconciler in the real AccountAgent, over D1: a confirm whose provider
// call timed out leaves the proposal applying with the object's alarm set;
// the alarm's callback settles it, and the settled apply is announced
// through the outbox like any other. The object is a fresh account of its
// own, configured with APPLY_PROVIDER=stub before its services are built.

type Instance = AccountAgent;

/** What the object holds outside its storage: its env, and the services built from it. */
const memoryOf = (instance: Instance) => instance as unknown as { env: Env; built: unknown };

/** A queue that keeps what the outbox hands it. */
function recordingQueue(): Queue<OutboxMessage> & { readonly sent: OutboxMessage[] } {
  const sent: OutboxMessage[] = [];
  const queue = {
    sent,
    send: async (body: OutboxMessage) => void sent.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<OutboxMessage>>) =>
      void sent.push(...[...messages].map((m) => m.body)),
  };
  return queue as unknown as Queue<OutboxMessage> & { readonly sent: OutboxMessage[] };
}

async function withStubbedAccount(
  body: (instance: Instance, account: string, queue: ReturnType<typeof recordingQueue>) => Promise<void>,
): Promise<void> {
  const account = `apply-${crypto.randomUUID().slice(0, 8)}`;
  const queue = recordingQueue();
  await runInDurableObject(await getAgentByName(env.ACCOUNT_AGENT, account), async (agent) => {
    const instance = agent as Instance;
    memoryOf(instance).env = {
      ...env,
      APPLY_PROVIDER: "stub",
      APPLY_PROVIDER_TIMEOUT_MS: "20",
      ...webhookVars("ok", account),
      OUTBOX_QUEUE: queue,
    } as Env;
    await body(instance, account, queue);
  });
}

async function reconcileSchedules(instance: Instance, proposalId: string) {
  return (await instance.listSchedules()).filter(
    (s) => s.callback === "reconcileApply" && (s.payload as { proposalId?: string }).proposalId === proposalId,
  );
}

describe("a confirm whose provider call timed out", () => {
  it("stays applying with the alarm set, and survives losing the object's memory and its alarm: the next wake re-arms it and the check settles it, applied once", async () => {
    await withStubbedAccount(async (instance, account, queue) => {
      const operator = { account, id: "ada", operator: "Ada" };
      const orderId = await insertFreshOrder({
        account,
        exception: "duplicate_order",
        status: "pending",
        paymentState: "captured",
      });
      const proposal = value(await instance.proposeChange(operator, "resolution", orderId, {}));
      value(
        await instance.decideProposal({ account, id: "avery", approver: "Avery" }, proposal.proposal_id, {
          decision: "approve",
          reason: "the customer confirmed the double submit",
        }),
      );
      const key = await applyKey(proposal);
      STUB_PROVIDER.script(key, "lose_answer");
      const rowBefore = await readRow(account, orderId);

      const confirmed = value(await instance.confirmProposal(operator, proposal.proposal_id));
      expect(confirmed.status).toBe("applying");
      expect(confirmed.message).toContain("the provider did not answer within 20 ms");
      expect(await countApplied(proposal.proposal_id)).toBe(0);
      expect(await readRow(account, orderId)).toEqual(rowBefore);
      const [armed] = await reconcileSchedules(instance, proposal.proposal_id);
      expect(armed?.payload).toEqual({ proposalId: proposal.proposal_id });

      // The object forgets everything it held in memory, and its alarm is lost with it.
      memoryOf(instance).built = undefined;
      for (const schedule of await reconcileSchedules(instance, proposal.proposal_id))
        await instance.cancelSchedule(schedule.id);
      expect(value(await instance.getProposal(operator, proposal.proposal_id)).status).toBe("applying");
      await instance.onStart();
      const [rearmed] = await reconcileSchedules(instance, proposal.proposal_id);
      expect(rearmed?.time).toBe(armed?.time);

      // What the alarm runs when the check falls due.
      await instance.reconcileApply(rearmed?.payload as { proposalId: string });
      const settled = value(await instance.getProposal(operator, proposal.proposal_id));
      expect(settled.status).toBe("applied");
      expect(settled.outcome?.order_version_after).toBe(Number(rowBefore.version) + 1);
      expect(await countApplied(proposal.proposal_id)).toBe(1);
      expect(STUB_PROVIDER.applications(key)).toBe(1);
      expect(STUB_PROVIDER.keysFor(orderId)).toEqual([key]);

      const trail = await countRows(
        "SELECT count(*) AS n FROM audit_events WHERE account = ? AND proposal_id = ?",
        account,
        proposal.proposal_id,
      );
      const steps = [
        "proposal_created",
        "proposal_approved",
        "proposal_apply_requested",
        "proposal_apply_unanswered",
        "proposal_apply_confirmed",
        "resolution_applied",
      ];
      for (const step of steps) {
        expect(
          await countRows(
            "SELECT count(*) AS n FROM audit_events WHERE account = ? AND proposal_id = ? AND event_type = ?",
            account,
            proposal.proposal_id,
            step,
          ),
          step,
        ).toBe(1);
      }
      expect(trail).toBe(steps.length);

      // The settled apply is announced as any apply is; the provider's steps stay internal.
      const applied = queue.sent
        .filter((m) => m.event_id.startsWith(`${account}/${proposal.proposal_id}:applied/`))
        .map((m) => m.event_id.split("/").slice(2).join(" "));
      expect(applied.sort()).toEqual([
        "approvals proposal.applied",
        "downstream order.updated",
        "downstream proposal.applied",
      ]);
      expect(queue.sent.filter((m) => m.event_id.includes(":apply_"))).toEqual([]);

      // Confirming now answers the stored outcome, and asks the provider nothing.
      const calls = STUB_PROVIDER.calls(key).length;
      expect(value(await instance.confirmProposal(operator, proposal.proposal_id)).status).toBe("applied");
      expect(STUB_PROVIDER.calls(key)).toHaveLength(calls);
    });
  });

  it("a refusal from the provider ends the proposal failed and leaves the order as it was", async () => {
    await withStubbedAccount(async (instance, account) => {
      const operator = { account, id: "ada", operator: "Ada" };
      const orderId = await insertFreshOrder({ account, exception: "fulfillment_hold_missing_sku", status: "on_hold" });
      const proposal = value(await instance.proposeChange(operator, "resolution", orderId, {}));
      value(
        await instance.decideProposal({ account, id: "avery", approver: "Avery" }, proposal.proposal_id, {
          decision: "approve",
          reason: "go",
        }),
      );
      STUB_PROVIDER.script(await applyKey(proposal), "refuse");
      const rowBefore = await readRow(account, orderId);
      const result = value(await instance.confirmProposal(operator, proposal.proposal_id));
      expect(result.status).toBe("failed");
      expect(await readRow(account, orderId)).toEqual(rowBefore);
      expect(await countApplied(proposal.proposal_id)).toBe(0);
      expect(
        await countRows(
          "SELECT count(*) AS n FROM audit_events WHERE proposal_id = ? AND event_type = 'proposal_apply_refused'",
          proposal.proposal_id,
        ),
      ).toBe(1);
    });
  });
});
