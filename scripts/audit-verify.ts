// `npm run audit:verify`: proves the audit trail in the LOCAL DEV DATABASE (the
// D1 that `npm run dev` uses) intact: every account's hash chain, and that
// every order has its origin event. It reads the database file directly, so no
// server has to run and it sees every account. Each chain is also held against
// the head its account object recorded outside D1 (and against --head, when
// given), so an end cut off together with its seals is caught too.
// Exits 1 on any problem, 2 on a usage mistake.
//
//   npm run audit:verify                              all accounts in .wrangler/state
//   npm run audit:verify -- --persist-to DIR          the state `npm run dev -- --persist-to DIR` used
//   npm run audit:verify -- --account acme [--head SEQ:HASH]
//                                                     one account, also against a head you kept (an export's
// X-Audit-Chain-Head)
//   npm run audit:verify -- --file trail.ndjson [--head SEQ:HASH]
//                                                     an unfiltered export from GET /api/audit, offline
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ChainHead } from "../src/audit/chain.ts";
import { checkExportedChain } from "../src/audit/chain-check.ts";
import { type ChainReport, verifyAuditChain } from "../src/store/audit-chain.ts";
import { auditAccounts, findOrdersWithoutOriginEvent } from "../src/store/invariants.ts";
import { readRecordedHeads } from "./lib/account-heads.ts";
import { openLocalDatabase } from "./lib/local-db.ts";

const args = process.argv.slice(2);

function option(name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function usage(message: string): never {
  console.error(`audit:verify: ${message}`);
  process.exit(2);
}

/** `--head 26:eaaa…`, as X-Audit-Chain-Head gives it. */
function givenHead(): ChainHead | undefined {
  const text = option("--head");
  if (text === undefined) return undefined;
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text);
  if (!match)
    usage(`--head wants SEQ:HASH as in X-Audit-Chain-Head (e.g. 26:eaaa…, 64 hex digits), not ${JSON.stringify(text)}`);
  return { seq: Number(match[1]), hash: match[2] ?? "" };
}

function short(hash: string | undefined): string {
  return hash ? `${hash.slice(0, 12)}…` : "-";
}

function printReport(report: ChainReport, against: readonly string[] = []): void {
  const head = report.head ? `head seq ${report.head.seq} (${short(report.head.hash)})` : "nothing sealed yet";
  const unsealed =
    report.unsealed > 0 ? `, ${report.unsealed} not sealed yet (sealed on the account's next activity)` : "";
  const anchors = against.length > 0 ? `; held against ${against.join(" and ")}` : "";
  console.log(
    `${report.ok ? "ok  " : "FAIL"} ${report.account}: ${report.sealed} sealed, ${head}${unsealed}${anchors}`,
  );
  for (const problem of report.problems) console.log(`       ${problem.kind}: ${problem.message}`);
}

async function verifyDatabase(given: ChainHead | undefined): Promise<boolean> {
  const only = option("--account");
  if (given && !only) usage("--head is one account's head: say whose with --account");
  const { db, where, close } = await openLocalDatabase(option("--persist-to"));
  try {
    console.log(`audit:verify: local dev database in ${path.relative(process.cwd(), where) || where}`);
    const recorded = await readRecordedHeads(where);
    for (const note of recorded.notes) console.log(`note ${note}`);
    let accounts: string[];
    try {
      // An account whose whole trail is gone from D1 is still known to its object.
      accounts = only ? [only] : [...new Set([...(await auditAccounts(db)), ...recorded.heads.keys()])].sort();
    } catch (error) {
      if (/no such table/.test(String(error))) {
        console.log(
          "FAIL the local database has no audit tables yet: run `npm run dev` once, it applies the migrations",
        );
        return false;
      }
      throw error;
    }
    let ok = true;
    for (const account of accounts) {
      const objectHead = recorded.heads.get(account);
      const anchors = [objectHead, account === only ? given : undefined].filter(
        (head): head is ChainHead => head !== undefined,
      );
      const against = [
        ...(objectHead ? [`the account object's head seq ${objectHead.seq}`] : []),
        ...(given && account === only ? [`--head seq ${given.seq}`] : []),
      ];
      const report = await verifyAuditChain(db, account, { anchors });
      printReport(report, against);
      ok &&= report.ok;
    }
    if (accounts.length === 0) console.log("     no audit events yet");
    const orphans = await findOrdersWithoutOriginEvent(db, only ? { account: only } : {});
    console.log(
      `${orphans.length === 0 ? "ok  " : "FAIL"} orders without an origin event: ${orphans.length === 0 ? "none" : orphans.map((o) => `${o.account}/${o.order_id}`).join(", ")}`,
    );
    return ok && orphans.length === 0;
  } finally {
    await close();
  }
}

async function verifyFile(file: string, given: ChainHead | undefined): Promise<boolean> {
  const text = readFileSync(file, "utf8");
  const checker = await checkExportedChain(text, given ? { anchors: [given] } : {});
  const account = /"account":("[^"]*")/.exec(text)?.[1];
  printReport(
    {
      account: account ? (JSON.parse(account) as string) : `${file} (empty)`,
      ok: checker.problems.length === 0,
      sealed: checker.checked,
      unsealed: 0,
      head: checker.head,
      problems: checker.problems,
    },
    given ? [`--head seq ${given.seq}`] : [],
  );
  return checker.problems.length === 0;
}

const given = givenHead();
const file = option("--file");
const passed = file ? await verifyFile(file, given) : await verifyDatabase(given);
process.exit(passed ? 0 : 1);
