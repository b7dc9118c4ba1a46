// `npm run soak [-- --seconds 30 --clients 6]`: starts `wrangler dev` on its own
// state, runs several concurrent clients of two accounts that mix every tool
// (send, read, propose_resolution and prepare_address_change, get_proposal,
// approve, confirm_resolution and apply_approved_change, simulate, a traffic
// run per account with its reads and a stop) with the approval list read while
// proposals are made, orders posted straight to the intake API (and replayed),
// and audit exports, for a bounded time. Every client first sends the same
// seed, so both accounts store the same order ids.
// Then it stops the server and checks what it wrote:
// - the stored intake orders equal the 201 answers (the runs' accepted orders included);
// - every order has its origin event (in both accounts for the shared seed),
//   every applied proposal exactly one apply event;
// - every audit export taken under load is an intact chain;
// - no response was a 5xx.
// Prints p50/p99 per operation and the error counts; exits non-zero on any violation.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { checkInvariants } from "../src/store/invariants.ts";
import { percentile } from "./lib/bench-stats.ts";
import { startDevServer } from "./lib/dev-server.ts";
import { count, withLocalDatabase } from "./lib/local-db.ts";
import {
  call,
  connect,
  exportAudit,
  listApprovals,
  postIntakeOrder,
  record,
  sendOrders,
  stats,
  timedFetch,
} from "./lib/soak-calls.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "30" }, clients: { type: "string", default: "6" } },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
if (!(SECONDS > 0) || !(CLIENTS > 0)) throw new Error("--seconds and --clients must be positive numbers");

const ACCOUNTS = [
  { account: "acme", token: "acme-dev-token", approver: "acme-approver-dev-token" },
  { account: "globex", token: "globex-dev-token", approver: "globex-approver-dev-token" },
] as const;

/**
 * Sent by every client before anything else. Audit ids such as
 * `<order_id>:received` once collided across accounts and the second
 * account's event was dropped; the same seed in both accounts is that case.
 */
const SHARED_SEED = 1 + Math.floor(Math.random() * 2 ** 31);
const SHARED_COUNT = 3;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

const STORIES = {
  resolution: { propose: "propose_resolution", confirm: "confirm_resolution" },
  address: { propose: "prepare_address_change", confirm: "apply_approved_change" },
} as const;

function newAddress(): Record<string, unknown> {
  const number = 1 + Math.floor(Math.random() * 9999);
  return {
    recipient: "Sam Soak",
    line1: `${number} Soak Street`,
    line2: null,
    city: "Austin",
    region: "TX",
    postal_code: "78701",
    country: "US",
  };
}

/**
 * One operator's story end to end: find a stuck order, propose a resolution
 * or an address change while the approver's list is being read, look the
 * proposal up, have it approved, confirm twice.
 */
async function operate(
  baseUrl: string,
  client: Client,
  approverToken: string,
  story: keyof typeof STORIES,
): Promise<void> {
  const listed = await call(client, "list_order_exceptions");
  const exceptions = (listed.structured.exceptions ?? []) as { order_id: string }[];
  if (exceptions.length === 0) {
    await call(client, "simulate_new_failure");
    return;
  }
  const target = pick(exceptions).order_id;
  await call(client, "get_order_details", { order_id: target });
  const args = story === "address" ? { order_id: target, address: newAddress() } : { order_id: target };
  const [proposal] = await Promise.all([
    call(client, STORIES[story].propose, args),
    listApprovals(baseUrl, approverToken),
  ]);
  // Another client resolved the order first, or an approved change of this kind waits: domain answers, not failures.
  if (proposal.isError) return;
  const proposalId = String(proposal.structured.proposal_id);
  await call(client, "get_proposal", { proposal_id: proposalId });
  await timedFetch("POST /api/approvals/:id", `${baseUrl}/api/approvals/${proposalId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${approverToken}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", reason: "soak test approval" }),
  });
  const first = await call(client, STORIES[story].confirm, { proposal_id: proposalId });
  const second = await call(client, STORIES[story].confirm, { proposal_id: proposalId });
  // The second answer repeats the outcome; only its message differs ("already applied at …").
  if (
    !first.isError &&
    first.structured.status === "applied" &&
    JSON.stringify(first.structured.outcome) !== JSON.stringify(second.structured.outcome)
  ) {
    stats.mismatches.push(`confirming ${proposalId} twice gave two different outcomes`);
  }
}

async function read(client: Client, account: string): Promise<void> {
  const orderId =
    account === "acme"
      ? pick(["ORD-1001", "ORD-1004", "ORD-1011", "ORD-1017"])
      : pick(["ORD-2001", "ORD-2003", "ORD-2005"]);
  const choice = pick(["status", "details", "audit", "preview", "target", "batches"] as const);
  if (choice === "status") await call(client, "get_order_status", { order_id: orderId });
  if (choice === "details") await call(client, "get_order_details", { order_id: orderId });
  if (choice === "audit") await call(client, "get_order_audit_log", { order_id: orderId });
  if (choice === "preview") await call(client, "preview_order", { seed: Math.floor(Math.random() * 1e9) });
  if (choice === "target") await call(client, "check_target");
  if (choice === "batches") {
    const started = performance.now();
    await client.readResource({ uri: "synthetic://batches" });
    record("read synthetic://batches", performance.now() - started);
  }
}

/** One traffic run per account, started by its first client; read while it runs, stopped after it ended. */
const RUN = { rate_per_second: 4, duration_seconds: 3 };
const runs: { client: Client; runId: string }[] = [];

async function startRun(client: Client): Promise<void> {
  const started = await call(client, "start_traffic_run", RUN);
  if (started.isError) stats.mismatches.push("start_traffic_run was refused with the account's run slot free");
  else runs.push({ client, runId: String(started.structured.run_id) });
}

async function readRun(client: Client): Promise<void> {
  const mine = runs.find((run) => run.client === client);
  if (mine) await call(client, "get_traffic_run", { run_id: mine.runId });
}

async function worker(
  baseUrl: string,
  index: number,
  deadline: number,
  ready: (client: Client) => void,
): Promise<void> {
  const who = ACCOUNTS[index % ACCOUNTS.length] ?? ACCOUNTS[0];
  const client = await connect(baseUrl, who.token);
  try {
    await sendOrders(client, { count: SHARED_COUNT, seed: SHARED_SEED });
    if (index < ACCOUNTS.length) await startRun(client);
    while (Date.now() < deadline) {
      const roll = Math.random();
      if (roll < 0.25) {
        await sendOrders(client, {
          count: 1 + Math.floor(Math.random() * 10),
          mode: Math.random() < 0.8 ? "seeded" : "simple",
        });
      } else if (roll < 0.6) {
        await read(client, who.account);
      } else if (roll < 0.75) {
        await operate(baseUrl, client, who.approver, "resolution");
      } else if (roll < 0.9) {
        await operate(baseUrl, client, who.approver, "address");
      } else if (roll < 0.93) {
        await listApprovals(baseUrl, who.approver);
      } else if (roll < 0.96) {
        await postIntakeOrder(baseUrl, who.token);
      } else if (roll < 0.97) {
        await exportAudit(baseUrl, who.approver);
      } else if (roll < 0.98) {
        await readRun(client);
      } else {
        await call(client, "simulate_new_failure");
      }
    }
  } finally {
    ready(client);
  }
}

/** Waits for each run to end by itself, counts what it stored, and stops it once more (a no-op after the end). */
async function settleRuns(): Promise<void> {
  for (const { client, runId } of runs) {
    const deadline = Date.now() + 30_000;
    let run = await call(client, "get_traffic_run", { run_id: runId, detail: "full" });
    while (run.structured.status === "running" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      run = await call(client, "get_traffic_run", { run_id: runId, detail: "full" });
    }
    if (run.structured.status !== "completed")
      stats.mismatches.push(`traffic run ${runId} ended ${String(run.structured.status)}, expected completed`);
    stats.created201 += Number((run.structured.status_counts as Record<string, number> | undefined)?.["201"] ?? 0);
    const stopped = await call(client, "stop_traffic_run", { run_id: runId });
    if (stopped.structured.status !== run.structured.status)
      stats.mismatches.push(`stopping the ended run ${runId} changed it to ${String(stopped.structured.status)}`);
  }
}

const stateDir = mkdtempSync(path.join(tmpdir(), "order-ops-soak-"));
let failures = 0;
const fail = (message: string) => {
  failures++;
  console.log(`FAIL ${message}`);
};
try {
  const server = await startDevServer({ stateDir });
  let sharedRequestId = "";
  try {
    console.log(`soak: ${CLIENTS} clients for ${SECONDS} s against ${server.url}, shared seed ${SHARED_SEED}`);
    const previewer = await connect(server.url, ACCOUNTS[0].token);
    const preview = await call(previewer, "preview_order", { seed: SHARED_SEED });
    sharedRequestId = String((preview.structured.order as { request_id?: string } | undefined)?.request_id ?? "");
    await previewer.close();
    const deadline = Date.now() + SECONDS * 1000;
    const clients: Client[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, (_, index) =>
        worker(server.url, index, deadline, (client) => clients.push(client)),
      ),
    );
    await settleRuns();
    await Promise.all(clients.map((client) => client.close()));
  } finally {
    await server.stop();
  }

  console.log(`\n${"operation".padEnd(28)}${"calls".padStart(7)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}`);
  for (const [operation, list] of [...stats.latencies].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `${operation.padEnd(28)}${String(sorted.length).padStart(7)}${percentile(sorted, 50).toFixed(1).padStart(10)}${percentile(sorted, 99).toFixed(1).padStart(10)}`,
    );
  }
  console.log(
    `\nHTTP statuses: ${[...stats.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ")}`,
  );
  console.log(`tool errors (domain answers such as "already resolved"): ${stats.toolErrors}`);

  const serverErrors = [...stats.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  if (serverErrors > 0) fail(`${serverErrors} response(s) were 5xx`);
  for (const mismatch of stats.mismatches) fail(mismatch);

  const { stored, report, sharedWithOrigin } = await withLocalDatabase(stateDir, async (db) => ({
    stored: await count(db, "SELECT count(*) AS n FROM orders WHERE source = 'intake'"),
    report: await checkInvariants(db),
    sharedWithOrigin:
      (
        await db
          .prepare(
            `SELECT count(DISTINCT o.account) AS n FROM orders o JOIN audit_events e ON e.account = o.account AND e.order_id = o.order_id
           WHERE o.request_id = ?1 AND e.event_type = 'order_received'`,
          )
          .bind(sharedRequestId)
          .all<{ n: number }>()
      ).results[0]?.n ?? 0,
  }));
  if (stored === stats.created201) console.log(`ok   stored intake orders (${stored}) equal the 201 answers`);
  else fail(`stored intake orders (${stored}) differ from the 201 answers (${stats.created201})`);
  const sendingAccounts = Math.min(CLIENTS, ACCOUNTS.length);
  if (sharedRequestId !== "" && sharedWithOrigin === sendingAccounts) {
    console.log(
      `ok   the shared seed's first order has its order_received event in each of the ${sendingAccounts} account(s)`,
    );
  } else {
    fail(
      `the shared seed's first order (${sharedRequestId || "no preview"}) has its order_received event in ${sharedWithOrigin} account(s), expected ${sendingAccounts}`,
    );
  }
  for (const [name, rows] of Object.entries(report)) {
    if (rows.length === 0) console.log(`ok   ${name}: none`);
    else fail(`${name}: ${rows.length} row(s), e.g. ${JSON.stringify(rows[0])}`);
  }
} catch (error) {
  fail(`soak crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
console.log(failures === 0 ? "soak: all invariants held" : `soak: ${failures} problem(s)`);
process.exit(failures === 0 ? 0 : 1);
