// Reads the local D1 database of a (stopped or running) `wrangler dev` through
// `wrangler d1 execute --local`, for scripts that check what the server wrote.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { INVARIANTS, type InvariantName } from "../../src/store/invariant-queries.ts";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");

export async function query<Row = Record<string, unknown>>(stateDir: string, sql: string): Promise<Row[]> {
  const { stdout } = await run(wrangler, ["d1", "execute", "DB", "--local", "--persist-to", stateDir, "--json", "--command", sql.replace(/\s+/g, " ")], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const answers = JSON.parse(stdout) as { results: Row[] }[];
  return answers.at(-1)?.results ?? [];
}

/** Each invariant of src/store/invariants.ts with the rows that break it (none when it holds). */
export async function invariantViolations(stateDir: string): Promise<[InvariantName, Record<string, unknown>[]][]> {
  const names = Object.keys(INVARIANTS) as InvariantName[];
  const answers: [InvariantName, Record<string, unknown>[]][] = [];
  for (const name of names) answers.push([name, await query(stateDir, INVARIANTS[name])]);
  return answers;
}
