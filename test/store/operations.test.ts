import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import type { ApplyCommand, ApplyResult } from "../../src/orders/port";
import { applyProposalChange } from "../../src/store/operations";
import { insertFreshOrder, readRow } from "../helpers/fresh-orders";
import { expectInvariantsHold } from "../helpers/orders";
import { countApplied, countProposalEvents } from "../helpers/rows";

// applyProposalChange, the store's apply, called directly: exactly once per
// proposal, and never on a version other than the pinned one.

afterAll(expectInvariantsHold);

describe("applyProposalChange", () => {
  it("the store's apply is exactly-once on its own too: 10 concurrent applies of one command, one write", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" });
    const command: ApplyCommand = {
      proposal_id: `prop_store_${crypto.randomUUID()}`,
      order_id: orderId,
      pinned_version: 1,
      change: { kind: "resolution", action: "retry_fulfillment" },
      confirmed_by: "store test",
      approved_by: "store approver",
      approval_reason: "direct",
    };
    const results: ApplyResult[] = await Promise.all(
      Array.from({ length: 10 }, () => applyProposalChange(env.DB, "acme", command, new Date())),
    );
    expect(results.filter((r) => r.kind === "applied")).toHaveLength(1);
    expect(results.filter((r) => r.kind === "already_applied")).toHaveLength(9);
    const outcomes = results.map((r) =>
      r.kind === "applied" || r.kind === "already_applied" ? JSON.stringify(r.outcome) : r.kind,
    );
    expect(new Set(outcomes).size).toBe(1);
    expect((await readRow("acme", orderId)).version).toBe(2);
    expect(await countApplied(command.proposal_id)).toBe(1);
    expect(await countProposalEvents(command.proposal_id, "resolution_applied")).toBe(1);
  });

  it("the store refuses a command pinned to an old version: stale, nothing written", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const before = await readRow("acme", orderId);
    const result = await applyProposalChange(
      env.DB,
      "acme",
      {
        proposal_id: `prop_store_${crypto.randomUUID()}`,
        order_id: orderId,
        pinned_version: 7,
        change: { kind: "resolution", action: "escalate_to_human" },
        confirmed_by: "x",
        approved_by: "y",
        approval_reason: "z",
      },
      new Date(),
    );
    expect(result).toEqual({ kind: "stale", current_version: 1 });
    expect(await readRow("acme", orderId)).toEqual(before);
  });
});
