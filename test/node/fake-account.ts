// The Cloudflare account the fake `wrangler` (fake-cli.ts) answers about,
// kept in a JSON file between its calls, and the log of every call. The
// deploy tests set an account up, run scripts/deploy.ts against it, and read
// back what changed and which commands ran.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface FakeWorker {
  readonly secrets: Record<string, string>;
  /** How many times code was uploaded. */
  readonly uploads: number;
}

export interface FakeAccount {
  readonly loggedIn: boolean;
  readonly email: string;
  /** Two or more: wrangler cannot pick one without CLOUDFLARE_ACCOUNT_ID. */
  readonly accounts: readonly { readonly id: string; readonly name: string }[];
  /** The account's workers.dev subdomain; null until someone chooses one. */
  readonly subdomain: string | null;
  /** Queue name -> its consumers, as `worker:<script>`. */
  readonly queues: Record<string, readonly string[]>;
  /** Database name -> the migrations applied to it. */
  readonly databases: Record<string, readonly string[]>;
  readonly kvNamespaces: readonly string[];
  /** The deployed Worker, null before its first deploy. */
  readonly worker: FakeWorker | null;
  /** What `npm run deploy:check` answers. */
  readonly checkPasses: boolean;
  /** wrangler.toml as the deploy reads it: the fake answers for this Worker. */
  readonly config: {
    readonly worker: string;
    readonly database: { readonly binding: string; readonly name: string };
    readonly queues: readonly string[];
    /** The queues it sends to, which wrangler deploy would create itself. */
    readonly producers: readonly string[];
  };
}

export interface Call {
  readonly tool: string;
  readonly args: readonly string[];
}

const ACCOUNT_FILE = "account.json";
const CALLS_FILE = "calls.ndjson";

export function readAccount(dir: string): FakeAccount {
  return JSON.parse(readFileSync(path.join(dir, ACCOUNT_FILE), "utf8")) as FakeAccount;
}

export function writeAccount(dir: string, account: FakeAccount): void {
  writeFileSync(path.join(dir, ACCOUNT_FILE), `${JSON.stringify(account, null, 2)}\n`);
}

export function logCall(dir: string, call: Call): void {
  appendFileSync(path.join(dir, CALLS_FILE), `${JSON.stringify(call)}\n`);
}

export function readCalls(dir: string): Call[] {
  const file = path.join(dir, CALLS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Call);
}

export function clearCalls(dir: string): void {
  writeFileSync(path.join(dir, CALLS_FILE), "");
}
