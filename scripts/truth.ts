// `npm run truth`: traffic runs against a reference order API with known
// schedules (scripts/lib/reference-target.ts), each reported figure printed
// beside the truth from the target's own log. A check, not a benchmark: a
// figure outside the tolerance (scripts/lib/truth-check.ts) exits non-zero.
//   npm run truth              (a) 50/s and 200/s, (b) 50/s, (c) 200/s, 20 s each
//   npm run truth -- --seconds 10 --only c
//   npm run truth -- --search  a capacity search against (c): the knee must lie at 60..85/s (lib/search-truth.ts)
import { loadavg } from "node:os";
import { startDevServer } from "./lib/dev-server.ts";
import { connect } from "./lib/mcp.ts";
import { SCHEDULES, startReferenceTarget } from "./lib/reference-target.ts";
import { runSearchTruth } from "./lib/search-truth.ts";
import { runTruthCase, type TruthCase, type TruthRow, truthTable } from "./lib/truth-check.ts";

const at = process.argv.indexOf("--seconds");
const seconds = at >= 0 ? Number(process.argv[at + 1]) : 20;
const only = process.argv.indexOf("--only");
const CASES: readonly TruthCase[] = (
  [
    { schedule: "a", rate: 50, seconds, overload: false },
    { schedule: "a", rate: 200, seconds, overload: false },
    { schedule: "b", rate: 50, seconds, overload: false },
    { schedule: "c", rate: 200, seconds, overload: true },
  ] as const
).filter((kase) => only < 0 || kase.schedule === process.argv[only + 1]);

const searching = process.argv.includes("--search");
const target = await startReferenceTarget();
const server = await startDevServer({ vars: truthVars(target.url) }).catch(async (error: unknown) => {
  await target.close();
  throw error;
});
const rows: TruthRow[] = [];
const searchProblems: string[] = [];
try {
  const client = await connect(server.url, "acme-dev-token");
  console.log(
    `load average before: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  for (const [name, words] of Object.entries(SCHEDULES)) console.log(`(${name}) ${words}`);
  if (searching) {
    const outcome = await runSearchTruth(client, target);
    console.log(`\n${outcome.table}\n\n${outcome.answer}`);
    searchProblems.push(...outcome.problems.map((problem) => `capacity search against (c): ${problem}`));
  }
  for (const kase of searching ? [] : CASES) {
    rows.push(await runTruthCase(client, target, kase));
    console.log(`${rows.at(-1)?.name} done; load average ${loadavg()[0]?.toFixed(2)}`);
  }
  await client.close();
} finally {
  await Promise.all([server.stop(), target.close()]);
}
if (!searching) console.log(`\n${truthTable(rows)}\n`);
console.log(
  `load average after: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
const problems = [
  ...searchProblems,
  ...rows.flatMap((row) => row.problems.map((problem) => `${row.name}: ${problem}`)),
];
for (const problem of problems) console.log(`FAIL ${problem}`);
console.log(problems.length === 0 ? "truth: every figure within tolerance" : `truth: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);

/** The dev server aimed at the reference target, with room for 200 orders a second. */
function truthVars(url: string): Record<string, string> {
  return { ORDER_API_URL: url, MAX_RUN_RATE: "500" };
}
