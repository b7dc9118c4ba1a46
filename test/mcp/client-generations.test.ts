import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExceptionSummary, OrderStatus, SimulatedFailure } from "../../src/orders/tool-outputs";
import type { ConfirmResult, ProposalView } from "../../src/proposals/proposal-schemas";
import { alreadyAppliedMessage } from "../../src/proposals/sentences";
import type { RunDetail, RunSummary } from "../../src/runs/run-schemas";
import type { BatchSummary } from "../../src/synth/batch-summary";
import type { Preview, TargetStatus } from "../../src/synth/target-check";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, connectClient, connectModernClient, type McpTestClient } from "../helpers/mcp-client";
import { approve, auditLog, callOk, confirm, details, getProposal, prepareAddress, propose } from "../helpers/ops";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";
import { resourceJson } from "../helpers/tool-results";

// Every tool and resource, driven through both SDK generations: the v1 client
// (2025-11-25, what most clients ship today) and the v2 client pinned to
// 2026-07-28. The same server answers both, with the same results.

interface ExceptionList {
  count: number;
  exceptions: ExceptionSummary[];
}

const NEW_ADDRESS = {
  recipient: "Dana Ops",
  line1: "9 Harbor Road",
  city: "Portland",
  region: "OR",
  postal_code: "97201",
  country: "US",
};

describe.each(CLIENT_GENERATIONS)("every tool through the $label (protocol $protocol)", (generation) => {
  let client: McpTestClient;

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "generations");
  });
  afterAll(async () => {
    await client.close();
  });

  it("synthetic traffic: check_target, preview_order, send_orders and both resources", async () => {
    expect(await callOk<TargetStatus>(client, "check_target")).toMatchObject({
      reachable: true,
      skus: 8,
      customers: 5,
      problem: null,
    });
    const seed = freshSeed();
    const preview = await callOk<Preview>(client, "preview_order", { seed });
    expect(preview).toMatchObject({ mode: "seeded", seed });
    const sent = await callOk<BatchSummary>(client, "send_orders", { count: 2, seed });
    expect(sent).toMatchObject({ seed, requested: 2, accepted: 2, status_counts: { "201": 2 } });
    const catalog = resourceJson<{ skus: unknown[] }>(await client.readResource({ uri: "synthetic://catalog" }));
    expect(catalog.skus).toHaveLength(7);
    const history = resourceJson<{ batches: { batch_id: string }[] }>(
      await client.readResource({ uri: "synthetic://batches" }),
    );
    expect(history.batches.map((b) => b.batch_id)).toContain(sent.batch_id);
  });

  it("traffic runs: start_traffic_run, get_traffic_run, stop_traffic_run, synthetic://runs and synthetic://runs/{run_id}", async () => {
    // MAX_ACTIVE_RUNS is 1: a run left over from another test would refuse this start.
    const before = resourceJson<{ runs: RunSummary[] }>(await client.readResource({ uri: "synthetic://runs" }));
    for (const run of before.runs.filter((r) => r.status === "running"))
      await callOk<RunSummary>(client, "stop_traffic_run", { run_id: run.run_id });

    const started = await callOk<RunSummary>(client, "start_traffic_run", { rate_per_second: 1, duration_seconds: 5 });
    expect(started).toMatchObject({
      status: "running",
      plan: { start_rate: 1, stages: [{ duration_seconds: 5, rate_per_second: 1 }], mode: "seeded" },
    });
    expect(await callOk<RunDetail>(client, "get_traffic_run", { run_id: started.run_id })).toMatchObject({
      run_id: started.run_id,
      status: "running",
    });
    const read = resourceJson<RunDetail>(await client.readResource({ uri: `synthetic://runs/${started.run_id}` }));
    expect(read).toMatchObject({ run_id: started.run_id, status: "running", plan: started.plan });
    expect(await callOk<RunSummary>(client, "stop_traffic_run", { run_id: started.run_id })).toMatchObject({
      run_id: started.run_id,
      status: "stopped",
    });
    const after = resourceJson<{ runs: RunSummary[] }>(await client.readResource({ uri: "synthetic://runs" }));
    expect(after.runs[0]).toMatchObject({ run_id: started.run_id, status: "stopped" });
  });

  it("order reads: list_order_exceptions, get_order_status, get_order_details, get_order_audit_log", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const list = await callOk<ExceptionList>(client, "list_order_exceptions");
    expect(list.exceptions.map((e) => e.order_id)).toContain(orderId);
    expect(await callOk<OrderStatus>(client, "get_order_status", { order_id: orderId })).toMatchObject({
      order_id: orderId,
      version: 1,
    });
    expect((await details(client, orderId)).duplicate?.of_order_id).toBe("ORD-1016");
    expect((await auditLog(client, orderId)).events.map((e) => e.event_type)).toEqual(["order_seeded"]);
  });

  it("proposals: propose, check, wait for a human, confirm once", async () => {
    const orderId = await insertFreshOrder({ exception: "duplicate_order" });
    const proposal = await propose(client, orderId);
    expect(proposal).toMatchObject({ status: "pending_approval", action: "cancel_duplicate_order" });
    expect((await getProposal(client, proposal.proposal_id)).status).toBe("pending_approval");
    expect(await confirm(client, proposal.proposal_id)).toMatchObject({ status: "approval_required" });
    await approve(proposal.proposal_id);
    const applied = await confirm(client, proposal.proposal_id);
    expect(applied.status).toBe("applied");
    expect(await confirm(client, proposal.proposal_id)).toEqual({
      ...applied,
      message: alreadyAppliedMessage({ ...applied, outcome: applied.outcome }),
    });
  });

  it("address changes: prepare_address_change, then apply_approved_change", async () => {
    const orderId = await insertFreshOrder({ exception: null, status: "processing" });
    const proposal: ProposalView = await prepareAddress(client, orderId, NEW_ADDRESS);
    expect(proposal.status).toBe("pending_approval");
    await approve(proposal.proposal_id);
    const applied: ConfirmResult = await confirm(client, proposal.proposal_id, "apply_approved_change");
    expect(applied.status).toBe("applied");
    expect((await details(client, orderId)).shipping_address).toMatchObject({
      line1: "9 Harbor Road",
      city: "Portland",
    });
  });

  it("simulate_new_failure (a demo tool, on in the test environment)", async () => {
    const created = await callOk<SimulatedFailure>(client, "simulate_new_failure");
    expect(created.order_id).toMatch(/^ORD-\d+$/);
    expect((await callOk<ExceptionList>(client, "list_order_exceptions")).exceptions.map((e) => e.order_id)).toContain(
      created.order_id,
    );
  });
});

describe("the two generations see one server", () => {
  it("the same seed previews the identical order, and an open proposal is the same one", async () => {
    const legacy = await connectClient(ACME_TOKEN, "gen-v1");
    const modern = await connectModernClient(ACME_TOKEN, "gen-v2");
    try {
      const seed = freshSeed();
      expect(await callOk<Preview>(modern, "preview_order", { mode: "simple", seed })).toEqual(
        await callOk<Preview>(legacy, "preview_order", { mode: "simple", seed }),
      );
      const orderId = await insertFreshOrder({ exception: "fraud_review" });
      const first = await propose(legacy, orderId);
      expect((await propose(modern, orderId)).proposal_id).toBe(first.proposal_id);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("the v2 client really negotiated 2026-07-28 and the v1 client 2025-11-25", async () => {
    const legacy = await connectClient(ACME_TOKEN, "gen-v1");
    const modern = await connectModernClient(ACME_TOKEN, "gen-v2");
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(legacy.getServerVersion()).toEqual({ name: "order-ops-edge", version: "0.1.0" });
      expect((legacy.transport as { protocolVersion?: string } | undefined)?.protocolVersion).toBe("2025-11-25");
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
