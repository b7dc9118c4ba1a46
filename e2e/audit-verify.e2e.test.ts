import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer } from "../scripts/lib/dev-server.ts";
import { callTool, connect } from "../scripts/lib/mcp.ts";

// `npm run audit:verify` end to end: a real `wrangler dev` writes and seals a
// trail (D1) and records its head (the account object's SQLite), then stops;
// the script runs on copies of that state, intact and tampered behind the
// triggers' back, and must answer with its exit code. No browser.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const APPROVER = "acme-approver-dev-token";
const scratch = mkdtempSync(path.join(tmpdir(), "order-ops-audit-verify-"));
const stateDir = path.join(scratch, "state");

interface Export {
  readonly head: string;
  readonly text: string;
}

let server: Awaited<ReturnType<typeof startDevServer>> | undefined;
let client: Client | undefined;
let older: Export;
let newer: Export;
let copies = 0;

async function exportTrail(url: string): Promise<Export> {
  const response = await fetch(`${url}/api/audit`, { headers: { authorization: `Bearer ${APPROVER}` } });
  expect(response.status).toBe(200);
  return { head: response.headers.get("x-audit-chain-head") ?? "", text: await response.text() };
}

function verify(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--experimental-strip-types", "--no-warnings", "scripts/audit-verify.ts", ...args],
      { cwd: root },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** A copy of the stopped server's state, for one scenario to tamper with. */
function copyOfState(): string {
  const copy = path.join(scratch, `copy-${++copies}`);
  cpSync(stateDir, copy, { recursive: true });
  return copy;
}

function sqliteFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name))
    .map((name) => path.join(dir, name));
}

/** The local D1 file itself, opened as anyone with access to the disk could. */
function openD1(state: string): DatabaseSync {
  const [file] = sqliteFiles(path.join(state, "v3", "d1", "miniflare-D1DatabaseObject"));
  if (!file) throw new Error("no local D1 database in the state");
  return new DatabaseSync(file);
}

const seqOf = (head: string) => Number(head.split(":")[0]);

beforeAll(async () => {
  server = await startDevServer({ quiet: true, stateDir });
  client = await connect(server.url, "acme-dev-token");
  older = await exportTrail(server.url);
  expect((await callTool(client, "send_orders", { count: 2, seed: 13013 })).isError).toBe(false);
  // The newest events are two proposals: cutting them off leaves every order its origin event, so only a head can tell.
  for (const order_id of ["ORD-1008", "ORD-1011"])
    expect((await callTool(client, "propose_resolution", { order_id })).isError).toBe(false);
  newer = await exportTrail(server.url);
  expect(seqOf(newer.head)).toBeGreaterThan(seqOf(older.head) + 3);
  await client.close();
  client = undefined;
  await server.stop();
  server = undefined;
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("the local database", () => {
  it("an intact trail passes, held against the head the account object recorded: exit 0", async () => {
    const { code, out } = await verify("--persist-to", copyOfState());
    expect(out).toContain(`ok   acme: ${seqOf(newer.head)} sealed`);
    expect(out).toContain(`held against the account object's head seq ${seqOf(newer.head)}`);
    expect(out).toContain("ok   orders without an origin event: none");
    expect(code, out).toBe(0);
  });

  it("the newest events removed together with their seals: the chain still links, the object's head does not match: exit 1", async () => {
    const state = copyOfState();
    const db = openD1(state);
    const keep = seqOf(newer.head) - 2;
    db.exec(`DROP TRIGGER audit_events_no_delete; DROP TRIGGER audit_seals_no_delete;
      DELETE FROM audit_events WHERE entry IN (SELECT entry FROM audit_seals WHERE account = 'acme' AND seq > ${keep});
      DELETE FROM audit_seals WHERE account = 'acme' AND seq > ${keep};`);
    db.close();
    const { code, out } = await verify("--persist-to", state);
    expect(out).toContain(
      `head_mismatch: the chain no longer reaches seq ${seqOf(newer.head)}, which was sealed: its end was cut off`,
    );
    expect(out).toContain("ok   orders without an origin event: none");
    expect(code, out).toBe(1);

    // With the object's storage gone too, an export's head the approver kept still catches it.
    for (const file of sqliteFiles(path.join(state, "v3", "do", "order-ops-edge-AccountAgent"))) rmSync(file);
    const kept = await verify("--persist-to", state, "--account", "acme", "--head", newer.head);
    expect(kept.out).not.toContain("the account object's head");
    expect(kept.out).toContain(`held against --head seq ${seqOf(newer.head)}`);
    expect(kept.out).toContain("its end was cut off");
    expect(kept.code, kept.out).toBe(1);
  });

  it("a sealed event edited: exit 1", async () => {
    const state = copyOfState();
    const db = openD1(state);
    db.exec(
      "DROP TRIGGER audit_events_no_update; UPDATE audit_events SET actor = 'Mallory' WHERE entry = (SELECT entry FROM audit_seals WHERE account = 'acme' AND seq = 1);",
    );
    db.close();
    const { code, out } = await verify("--persist-to", state, "--account", "acme");
    expect(out).toMatch(/edited: seq 1 \(\S+\) no longer matches its hash: it was edited/);
    expect(code, out).toBe(1);
  });
});

describe("an export file", () => {
  it("a newer export checked against an older export's head: exit 0", async () => {
    const file = path.join(scratch, "newer.ndjson");
    writeFileSync(file, newer.text);
    const { code, out } = await verify("--file", file, "--head", older.head);
    expect(out).toContain(`ok   acme: ${seqOf(newer.head)} sealed`);
    expect(code, out).toBe(0);
  });

  it("the same export with one line edited, or against a head it does not hold: exit 1", async () => {
    const edited = path.join(scratch, "edited.ndjson");
    writeFileSync(edited, newer.text.replace(/"actor":"[^"]*"/, '"actor":"Mallory"'));
    const tampered = await verify("--file", edited, "--head", newer.head);
    expect(tampered.out).toContain("edited: seq 1");
    expect(tampered.code, tampered.out).toBe(1);
    const file = path.join(scratch, "older.ndjson");
    writeFileSync(file, older.text);
    const short = await verify("--file", file, "--head", newer.head);
    expect(short.out).toContain("its end was cut off");
    expect(short.code, short.out).toBe(1);
  });
});
