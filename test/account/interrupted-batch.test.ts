import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { expect, it } from "vitest";
import { SqlBatchJournal } from "../../src/account/batch-journal";
import type { BatchRecord } from "../../src/synth/batch-summary";
import { runningBatch } from "../helpers/batch-records";
import { value } from "../helpers/results";
import { simulateRestart } from "../helpers/simulated-restart";

// A batch cut short by a crash must not vanish with its seed. Here a real
// AccountAgent holds a batch journaled as running when its instance is
// thrown away; the next instance must show it interrupted, seed and tally kept.

const GLOBEX = { account: "globex", id: "gus-ops", operator: "Gus Ops (globex, local dev)" };

it("a batch left running when the object restarts shows as interrupted, with its seed and what was answered", async () => {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, "globex");
  value(await stub.recentBatches(GLOBEX)); // the instance is up, its services built
  const batchId = `B-cut-${crypto.randomUUID().slice(0, 8)}`;
  const seed = 424242;
  await runInDurableObject(stub, (_instance, state) => {
    const journal = new SqlBatchJournal(state.storage.sql);
    journal.open(runningBatch(batchId, seed, new Date().toISOString(), GLOBEX.operator));
    journal.update(batchId, {
      sent: 30,
      accepted: 30,
      rejected: 0,
      status_counts: { "201": 30 },
      accepted_total_cents: 123_00,
      sample_failures: [],
    });
  });
  await simulateRestart(stub);

  const after = await getAgentByName(env.ACCOUNT_AGENT, "globex");
  const cut = value(await after.recentBatches(GLOBEX)).find((batch: BatchRecord) => batch.batch_id === batchId);
  expect(cut).toMatchObject({
    seed,
    requested: 100,
    accepted: 30,
    status_counts: { "201": 30 },
    outcome: "interrupted",
  });
  expect(cut?.error).toMatch(/the server stopped while this batch was running/);
});
