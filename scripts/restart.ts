// `npm run test:restart`: kills `wrangler dev` (SIGKILL, as a crash would) in
// the middle of a batch, between an approval and its confirmation, and in the
// middle of a traffic run; restarts it on the same state each time, and checks
// that nothing was lost or duplicated:
// - the cut batch is listed as interrupted, with its seed and a tally that
//   agrees with the orders stored, and replaying the seed completes it
//   without duplicates;
// - the approved proposal is applied exactly once after the restart, and its
//   webhooks, whose retries the crash took from the local queue, still arrive
//   once each (the drain hands them over again);
// - the traffic run resumes and sends each of its orders once;
// - every invariant of src/store/invariants.ts holds;
// - no response was a 5xx (a request cut by the crash gets no response at all).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { checkInvariants } from "../src/store/invariants.ts";
import { JOURNAL_INTERVAL_MS } from "../src/synth/journal-interval.ts";
import { type DevServer, startDevServer } from "./lib/dev-server.ts";
import { count, withLocalDatabase } from "./lib/local-db.ts";
import { checkDeliveredAfterCrash, startCrashReceiver } from "./lib/restart-webhooks.ts";

const TOKEN = "acme-dev-token";
const APPROVER = "acme-approver-dev-token";

let failures = 0;
function check(label: string, condition: boolean, detail = ""): void {
  if (!condition) failures++;
  console.log(`${condition ? "ok  " : "FAIL"} ${label}${detail ? `  ${detail}` : ""}`);
}

/** Every HTTP status the servers answered, across all restarts. */
const statuses = new Map<number, number>();
const countingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  return response;
};

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "order-ops-restart", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      fetch: countingFetch,
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

async function structured<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

async function readJson<T>(client: Client, uri: string): Promise<T> {
  const content = (await client.readResource({ uri })).contents[0];
  return JSON.parse(content && "text" in content ? String(content.text) : "null") as T;
}

const intakeOrders = (stateDir: string) =>
  withLocalDatabase(stateDir, (db) => count(db, "SELECT count(*) AS n FROM orders WHERE source = 'intake'"));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface BatchRecord {
  batch_id: string;
  seed: number;
  requested: number;
  outcome: string;
  accepted: number;
  rejected: number;
  status_counts: Record<string, number>;
}

/** Orders a measured batch stores before the cut one: the pace the cut is aimed by. */
const MEASURED = 100;
/** The cut batch may be larger than the default MAX_BATCH, to outlast several journal updates. */
const MAX_CUT_BATCH = 2_000;

interface CutBatch {
  /** Orders the cut batch asked for. */
  readonly requested: number;
  /** How many of them were stored before the crash. */
  readonly stored: number;
  /** The measured pace: how long one accepted order took. */
  readonly perOrderMs: number;
}

/**
 * Measures the pace of an accepted batch on this server (rejected orders
 * write nothing and run faster), then starts a batch with no seed that lasts
 * about twice as long as the wait before the cut, and crashes the server at
 * that point: mid-batch, and at least two journal intervals in, on a fast or
 * a slow machine alike. (Under `wrangler dev` other requests wait while a
 * batch runs, so the cut cannot be aimed by watching the journal.)
 */
async function cutBatch(server: DevServer): Promise<CutBatch> {
  const client = await connect(server.url);
  // The first batch after a start also pays for loading what sending needs, which once made the measured pace so
  // slow that the cut batch ended before the crash; only the second half is timed.
  const half = MEASURED / 2;
  await structured(client, "send_orders", { count: half, seed: 1 });
  const started = performance.now();
  await structured(client, "send_orders", { count: half, seed: 2 });
  const perOrderMs = (performance.now() - started) / half;
  const cutAtMs = Math.max(2.5 * JOURNAL_INTERVAL_MS, 2.5 * perOrderMs * MEASURED);
  const requested = Math.min(MAX_CUT_BATCH, Math.max(MEASURED, Math.ceil((2 * cutAtMs) / perOrderMs)));
  void client.callTool({ name: "send_orders", arguments: { count: requested } }).catch(() => undefined);
  await sleep(cutAtMs);
  await server.crash();
  return { requested, stored: (await intakeOrders(server.stateDir)) - MEASURED, perOrderMs };
}

const stateDir = mkdtempSync(path.join(tmpdir(), "order-ops-restart-"));
// One order in flight at a time: the journal's lag is then easy to bound, and a batch lasts long enough to be cut in
// the middle.
const SEND_CONCURRENCY = 1;
const webhooks = await startCrashReceiver();
const vars = { SEND_CONCURRENCY: String(SEND_CONCURRENCY), MAX_BATCH: String(MAX_CUT_BATCH), ...webhooks.vars };
const args = webhooks.args;
try {
  // 1. A batch cut short by a crash.
  let server = await startDevServer({ stateDir, vars, args });
  const cut = await cutBatch(server);
  server = await startDevServer({ stateDir, vars, args });
  let client = await connect(server.url);
  const { batches } = await readJson<{ batches: BatchRecord[] }>(client, "synthetic://batches");
  const interrupted = batches.find((b) => b.outcome === "interrupted");
  check(
    "the cut batch is listed as interrupted, with its seed",
    interrupted !== undefined && Number.isInteger(interrupted.seed),
    JSON.stringify(interrupted),
  );
  check(
    "some but not all of its orders were stored",
    cut.stored > 0 && cut.stored < cut.requested,
    `${cut.stored} of ${cut.requested} stored`,
  );
  if (interrupted) {
    const lag = cut.stored - interrupted.accepted;
    // The journal is at most JOURNAL_INTERVAL_MS behind: at a crash it may trail the stored
    // orders by what was answered in the last interval plus what was in flight (the object sends
    // nothing more until a write is durable, so a crash that takes an update cannot make it trail
    // further), and it must never claim more than was stored. Twice the measured pace: a crash is
    // no time to be exact about the machine's speed.
    const answeredPerInterval = Math.ceil((2 * JOURNAL_INTERVAL_MS) / cut.perOrderMs);
    check(
      "its journaled tally agrees with the stored orders: updated while it ran, all accepted, none claimed that was not stored, trailing by at most a journal interval",
      interrupted.requested === cut.requested &&
        interrupted.accepted > 0 &&
        interrupted.rejected === 0 &&
        (interrupted.status_counts["201"] ?? 0) === interrupted.accepted &&
        lag >= 0 &&
        lag <= answeredPerInterval + SEND_CONCURRENCY,
      `journal: ${interrupted.accepted} accepted ${JSON.stringify(interrupted.status_counts)}; stored: ${cut.stored}; at most ${answeredPerInterval} answered per interval`,
    );
    const replay = await structured<{ accepted: number; status_counts: Record<string, number> }>(
      client,
      "send_orders",
      {
        count: cut.requested,
        seed: interrupted.seed,
      },
    );
    check(
      "replaying its seed completes it: the stored orders answer 200, the rest 201",
      replay.accepted === cut.requested && (replay.status_counts["200"] ?? 0) === cut.stored,
      JSON.stringify(replay.status_counts),
    );
    const after = (await intakeOrders(stateDir)) - MEASURED;
    check(
      `exactly its ${cut.requested} intake orders exist: nothing was duplicated`,
      after === cut.requested,
      `${after}`,
    );
  }

  // 2. A crash between the approval and the confirmation.
  const exceptions = (await structured<{ exceptions: { order_id: string }[] }>(client, "list_order_exceptions"))
    .exceptions;
  const orderId = exceptions[0]?.order_id ?? "ORD-1017";
  const proposal = await structured<{ proposal_id: string }>(client, "propose_resolution", { order_id: orderId });
  const approval = await countingFetch(`${server.url}/api/approvals/${proposal.proposal_id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${APPROVER}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", reason: "restart test" }),
  });
  check("the approval is recorded before the crash", approval.status === 200, String(approval.status));
  await client.close().catch(() => undefined);
  await server.crash();
  server = await startDevServer({ stateDir, vars, args });
  client = await connect(server.url);
  type Confirmed = { status: string; message: string; outcome: unknown };
  const first = await structured<Confirmed>(client, "confirm_resolution", { proposal_id: proposal.proposal_id });
  const second = await structured<Confirmed>(client, "confirm_resolution", { proposal_id: proposal.proposal_id });
  const once =
    first.status === "applied" &&
    JSON.stringify(first.outcome) === JSON.stringify(second.outcome) &&
    second.message.includes("was already applied");
  check("after the restart the approved proposal applies, once", once, `${first.status}; ${second.message}`);
  await checkDeliveredAfterCrash(
    server,
    webhooks,
    proposal.proposal_id,
    ["proposal.created", "proposal.approved"],
    check,
  );

  // 3. A traffic run across a crash.
  const run = await structured<{ run_id: string; plan: { seed: number; total_orders: number } }>(
    client,
    "start_traffic_run",
    {
      rate_per_second: 5,
      duration_seconds: 4,
    },
  );
  for (let waited = 0; waited < 10_000; waited += 100) {
    await sleep(100);
    if ((await structured<{ sent: number }>(client, "get_traffic_run", { run_id: run.run_id })).sent > 0) break;
  }
  await client.close().catch(() => undefined);
  await server.crash();
  server = await startDevServer({ stateDir, vars, args });
  client = await connect(server.url);
  let status = "running";
  let sent = 0;
  for (let waited = 0; waited < 30_000 && status === "running"; waited += 250) {
    await sleep(250);
    const current = await structured<{ status: string; sent: number }>(client, "get_traffic_run", {
      run_id: run.run_id,
    });
    status = current.status;
    sent = current.sent;
  }
  check("the traffic run resumed after the restart and completed", status === "completed", `${status}, ${sent} sent`);
  check(
    "its tally counts each of its orders once",
    sent === run.plan.total_orders,
    `${sent} of ${run.plan.total_orders}`,
  );
  await client.close().catch(() => undefined);
  await server.stop();

  const total = await intakeOrders(stateDir);
  check(
    "no run order was stored twice",
    total === MEASURED + cut.requested + run.plan.total_orders,
    `${total} intake orders`,
  );
  const report = await withLocalDatabase(stateDir, checkInvariants);
  for (const [name, rows] of Object.entries(report))
    check(`invariant ${name}`, rows.length === 0, rows.length ? JSON.stringify(rows[0]) : "");
  const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  const seen = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(", ");
  check("no response was a 5xx", serverErrors === 0, seen);
} catch (error) {
  check("restart test ran to the end", false, error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await webhooks.receiver.close();
  rmSync(stateDir, { recursive: true, force: true });
}
console.log(failures === 0 ? "restart: all checks passed" : `restart: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
