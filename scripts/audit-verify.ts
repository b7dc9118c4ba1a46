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
import { readFileSync } from "node:fs";
import path from "node:path";
import { checkExportedChain, verifyAuditChain, type ChainHead, type ChainReport } from "../src/store/audit-chain.ts";
import { auditAccounts, findOrdersWithoutOriginEvent } from "../src/store/invariants.ts";
import { openLocalDatabase } from "./lib/local-db.ts";

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

async function verifyDatabase(): Promise<boolean> {
  const { db, where, close } = await openLocalDatabase(option("--persist-to"));
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
