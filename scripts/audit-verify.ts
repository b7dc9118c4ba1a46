// `npm run audit:verify`: proves the audit trail in the LOCAL DEV DATABASE (the
// D1 that `npm run dev` uses) intact: every account's hash chain, and that
// every order has its origin event. It reads the database file directly, so no
// server has to run and it sees every account. Exits 1 on any problem.
//
//   npm run audit:verify                              all accounts in .wrangler/state
//   npm run audit:verify -- --persist-to DIR          the state `npm run dev -- --persist-to DIR` used
//   npm run audit:verify -- --account acme            one account
//   npm run audit:verify -- --file trail.ndjson [--head SEQ:HASH]
//                                                     an unfiltered export from GET /api/audit, offline
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy, unstable_readConfig } from "wrangler";
import { checkExportedChain, verifyAuditChain, type AuditDatabase, type ChainHead, type ChainReport } from "../src/store/audit-chain.ts";
import { auditAccounts, findOrdersWithoutOriginEvent } from "../src/store/audit-invariants.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

function option(name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function short(hash: string | undefined): string {
  return hash ? `${hash.slice(0, 12)}…` : "-";
}

function printReport(report: ChainReport): void {
  const head = report.head ? `head seq ${report.head.seq} (${short(report.head.hash)})` : "nothing sealed yet";
  const unsealed = report.unsealed > 0 ? `, ${report.unsealed} not sealed yet (sealed on the account's next activity)` : "";
  console.log(`${report.ok ? "ok  " : "FAIL"} ${report.account}: ${report.sealed} sealed, ${head}${unsealed}`);
  for (const problem of report.problems) console.log(`       ${problem.kind}: ${problem.message}`);
}

/** The DB binding of wrangler.toml on the local state, through a config holding only that binding. */
async function openLocalDatabase(): Promise<{ db: AuditDatabase; where: string; close: () => Promise<void> }> {
  const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") });
  const binding = config.d1_databases.find((d: { binding: string }) => d.binding === "DB");
  if (!binding) throw new Error("wrangler.toml has no D1 binding named DB");
  const persistTo = option("--persist-to");
  // `wrangler dev --persist-to DIR` keeps its state in DIR/v3; the default is .wrangler/state/v3.
  const statePath = persistTo ? path.resolve(persistTo, "v3") : path.join(root, ".wrangler", "state", "v3");
  // The full config would start the Worker's Durable Objects and entrypoints; the database is all this needs.
  const scratch = mkdtempSync(path.join(tmpdir(), "audit-verify-"));
  const configPath = path.join(scratch, "wrangler.json");
  writeFileSync(configPath, JSON.stringify({ name: "audit-verify", compatibility_date: config.compatibility_date, d1_databases: [binding] }));
  const proxy = await getPlatformProxy<{ DB: AuditDatabase }>({ configPath, persist: { path: statePath } });
  return {
    db: proxy.env.DB,
    where: statePath,
    close: async () => {
      await proxy.dispose();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

async function verifyDatabase(): Promise<boolean> {
  const { db, where, close } = await openLocalDatabase();
  try {
    console.log(`audit:verify: local dev database in ${path.relative(process.cwd(), where) || where}`);
    let accounts: string[];
    try {
      const only = option("--account");
      accounts = only ? [only] : await auditAccounts(db);
    } catch (error) {
      if (/no such table/.test(String(error))) {
        console.log("FAIL the local database has no audit tables yet: run `npm run dev` once, it applies the migrations");
        return false;
      }
      throw error;
    }
    let ok = true;
    for (const account of accounts) {
      const report = await verifyAuditChain(db, account);
      printReport(report);
      ok &&= report.ok;
    }
    if (accounts.length === 0) console.log("     no audit events yet");
    const only = option("--account");
    const orphans = await findOrdersWithoutOriginEvent(db, only ? { account: only } : {});
    console.log(`${orphans.length === 0 ? "ok  " : "FAIL"} orders without an origin event: ${orphans.length === 0 ? "none" : orphans.map((o) => `${o.account}/${o.order_id}`).join(", ")}`);
    return ok && orphans.length === 0;
  } finally {
    await close();
  }
}

async function verifyFile(file: string): Promise<boolean> {
  const text = readFileSync(file, "utf8");
  const checker = await checkExportedChain(text);
  const expected = option("--head");
  if (expected) {
    const [seq, hash] = expected.split(":");
    const anchor: ChainHead = { seq: Number(seq), hash: hash ?? "" };
    checker.expectHead(anchor, checker.head?.seq === anchor.seq ? checker.head.hash : null);
  }
  const account = /"account":("[^"]*")/.exec(text)?.[1];
  printReport({
    account: account ? (JSON.parse(account) as string) : `${file} (empty)`,
    ok: checker.problems.length === 0,
    sealed: checker.checked,
    unsealed: 0,
    head: checker.head,
    problems: checker.problems,
  });
  return checker.problems.length === 0;
}

const file = option("--file");
const passed = file ? await verifyFile(file) : await verifyDatabase();
process.exit(passed ? 0 : 1);
