import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getAgentByName } from "agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FOREIGN_CALLER_MESSAGE } from "../../src/account/account-calls";
import type { BatchRecord, BatchSummary } from "../../src/synth/batch-summary";
import { connectClient } from "../helpers/mcp-client";
import { expectInvariantsHold } from "../helpers/orders";
import { countRequestIds, expectedOrders, freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";
import { resourceJson, structuredOf } from "../helpers/tool-results";

// Generator state (batch history) and traffic belong to the account of the
// token; one account's sends run one batch at a time.

let acme: Client;
let globex: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "isolation-acme");
  globex = await connectClient(GLOBEX_TOKEN, "isolation-globex");
});
afterAll(async () => {
  await expectInvariantsHold();
  await Promise.all([acme.close(), globex.close()]);
});

async function send(client: Client, args: Record<string, unknown>): Promise<BatchSummary> {
  return structuredOf<BatchSummary>(await client.callTool({ name: "send_orders", arguments: args }));
}

async function history(client: Client): Promise<BatchRecord[]> {
  return resourceJson<{ batches: BatchRecord[] }>(await client.readResource({ uri: "synthetic://batches" })).batches;
}

describe("batch history", () => {
  it("one account's batches are invisible to another", async () => {
    const acmeSeed = freshSeed();
    const globexSeed = freshSeed();
    const acmeBatch = await send(acme, { count: 2, seed: acmeSeed });
    const globexBatch = await send(globex, { count: 2, mode: "simple", seed: globexSeed });

    const acmeHistory = await history(acme);
    const globexHistory = await history(globex);
    expect(acmeHistory.map((b) => b.seed)).toContain(acmeSeed);
    expect(globexHistory.map((b) => b.seed)).not.toContain(acmeSeed);
    expect(globexHistory.map((b) => b.seed)).toContain(globexSeed);
    expect(acmeHistory.map((b) => b.seed)).not.toContain(globexSeed);
    expect(acmeHistory.map((b) => b.batch_id)).not.toContain(globexBatch.batch_id);
    expect(globexHistory.map((b) => b.batch_id)).not.toContain(acmeBatch.batch_id);
  });

  it("a history entry is the batch summary plus who sent it, when, and how it ended", async () => {
    const seed = freshSeed();
    const summary = await send(acme, { count: 3, seed });
    const [newest] = await history(acme);
    expect(newest).toEqual({
      ...summary,
      operator: "Ada Ops (acme, local dev)",
      started_at: newest?.started_at,
      finished_at: newest?.finished_at,
      outcome: "completed",
      error: null,
    });
    expect(Date.parse(newest?.started_at ?? "")).toBeLessThanOrEqual(Date.parse(newest?.finished_at ?? ""));
    expect((await history(globex)).every((b) => b.operator === "Gus Ops (globex, local dev)")).toBe(true);
  });

  it("is newest first", async () => {
    await send(acme, { count: 1, seed: freshSeed() });
    const starts = (await history(acme)).map((b) => b.started_at);
    expect(starts.length).toBeGreaterThan(1);
    expect(starts).toEqual([...starts].sort().reverse());
  });
});

describe("the AccountAgent itself", () => {
  const globexOperator = { account: "globex", id: "gus-ops", operator: "Gus Ops (globex, local dev)" };
  const globexApprover = { account: "globex", id: "gina-approver", approver: "Gina Approver (globex, local dev)" };
  const refusal = { ok: false, error: { code: "forbidden", message: FOREIGN_CALLER_MESSAGE } };

  it("refuses a caller of another account on every entry, even if the Worker routed it there (defence in depth)", async () => {
    const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
    const answers = await Promise.all([
      stub.sendOrders(globexOperator, { count: 1, mode: "seeded", seed: 1 }),
      stub.recentBatches(globexOperator),
      stub.proposeChange(globexOperator, "resolution", "ORD-1016", {}),
      stub.proposeChange(globexOperator, "address_change", "ORD-1016", {
        address: {
          recipient: "A",
          line1: "1 Main St",
          city: "Austin",
          region: "TX",
          postal_code: "78701",
          country: "US",
        },
      }),
      stub.getProposal(globexOperator, "prop_x"),
      stub.confirmProposal(globexOperator, "prop_x"),
      stub.reviewProposal(globexApprover, "prop_x"),
      stub.decideProposal(globexApprover, "prop_x", { decision: "approve", reason: "looks fine" }),
      stub.pendingProposals(globexApprover),
    ]);
    for (const answer of answers) expect(answer).toEqual(refusal);
  });
});

describe("traffic", () => {
  it("orders land only in the sending account", async () => {
    const seed = freshSeed();
    await send(acme, { count: 3, seed });
    const ids = expectedOrders("seeded", seed, 3).map((o) => o.request_id);
    expect(await countRequestIds("acme", ids)).toBe(3);
    expect(await countRequestIds("globex", ids)).toBe(0);
  });

  it("the same seed in another account creates that account's own orders (201), not a replay of the first account's", async () => {
    const seed = freshSeed();
    const first = await send(acme, { count: 3, seed });
    const other = await send(globex, { count: 3, seed });
    expect(first.status_counts).toEqual({ "201": 3 });
    expect(other.status_counts).toEqual({ "201": 3 });
    expect(other.accepted_total_cents).toBe(first.accepted_total_cents);
    const ids = expectedOrders("seeded", seed, 3).map((o) => o.request_id);
    expect(await countRequestIds("globex", ids)).toBe(3);
    // Each account gets its own order_received events, although their ids are the same as the first account's.
    const placeholders = ids.map(() => "?").join(", ");
    const { results } = await env.DB.prepare(
      `SELECT o.account, count(e.event_id) AS received FROM orders o
       LEFT JOIN audit_events e ON e.account = o.account AND e.order_id = o.order_id AND e.event_type = 'order_received'
       WHERE o.request_id IN (${placeholders}) GROUP BY o.account ORDER BY o.account`,
    )
      .bind(...ids)
      .all<{ account: string; received: number }>();
    expect(results).toEqual([
      { account: "acme", received: 3 },
      { account: "globex", received: 3 },
    ]);
  });
});

interface Interval {
  seed: number;
  start: number;
  end: number;
}

function intervalOf(record: BatchRecord): Interval {
  return { seed: record.seed, start: Date.parse(record.started_at), end: Date.parse(record.finished_at ?? "") };
}

/** Pairs of batches whose [started_at, finished_at] intervals overlap (touching ends do not count). */
function overlappingPairs(intervals: readonly Interval[]): [number, number][] {
  const pairs: [number, number][] = [];
  for (const [i, a] of intervals.entries()) {
    for (const b of intervals.slice(i + 1)) {
      if (a.start < b.end && b.start < a.end) pairs.push([a.seed, b.seed]);
    }
  }
  return pairs;
}

describe("serialized sends", () => {
  it("concurrent send_orders calls for one account run one batch at a time", async () => {
    const seeds = [freshSeed(), freshSeed(), freshSeed()];
    const clients = await Promise.all(seeds.map((_, i) => connectClient(ACME_TOKEN, `concurrent-${i}`)));
    try {
      const summaries = await Promise.all(clients.map((client, i) => send(client, { count: 20, seed: seeds[i] })));
      for (const summary of summaries) expect(summary.status_counts).toEqual({ "201": 20 });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }

    const intervals = (await history(acme)).filter((b) => seeds.includes(b.seed)).map(intervalOf);
    expect(intervals).toHaveLength(3);
    // Each batch took measurable time, so overlapping batches could not hide behind equal timestamps.
    for (const interval of intervals) expect(interval.end).toBeGreaterThan(interval.start);
    expect(overlappingPairs(intervals)).toEqual([]);
  });

  it("control: batches of two different accounts sent at once do overlap, so the check above can see overlap", async () => {
    const acmeSeed = freshSeed();
    const globexSeed = freshSeed();
    const [a, g] = await Promise.all([
      send(acme, { count: 30, seed: acmeSeed }),
      send(globex, { count: 30, seed: globexSeed }),
    ]);
    expect(a.accepted).toBe(30);
    expect(g.accepted).toBe(30);
    const acmeRecord = (await history(acme)).find((b) => b.seed === acmeSeed);
    const globexRecord = (await history(globex)).find((b) => b.seed === globexSeed);
    if (!acmeRecord || !globexRecord) throw new Error("batch missing from history");
    expect(overlappingPairs([intervalOf(acmeRecord), intervalOf(globexRecord)])).toEqual([[acmeSeed, globexSeed]]);
  });

  it("the overlap check itself: touching intervals are fine, nested or crossing ones are reported", () => {
    expect(
      overlappingPairs([
        { seed: 1, start: 0, end: 5 },
        { seed: 2, start: 5, end: 9 },
      ]),
    ).toEqual([]);
    expect(
      overlappingPairs([
        { seed: 1, start: 0, end: 5 },
        { seed: 2, start: 4, end: 9 },
        { seed: 3, start: 1, end: 2 },
      ]),
    ).toEqual([
      [1, 2],
      [1, 3],
    ]);
  });
});
