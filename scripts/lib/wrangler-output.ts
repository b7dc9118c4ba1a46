// Reading what wrangler 4.156 answers, for `npm run deploy`. Where wrangler
// has structured output it is used: `whoami --json`, `secret list --format
// json`, and the output file it writes when WRANGLER_OUTPUT_FILE_PATH is set
// (one JSON entry per line: `deploy` with the addresses it deployed to,
// `command-failed` with the error's message). `queues info` prints text only.
// Pure, so the suite checks each reader against wrangler's real shapes.

/** One command's result, as scripts/lib/deploy-wrangler.ts collects it. */
export interface Ran {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The entries wrangler wrote to its output file. */
  readonly entries: readonly OutputEntry[];
}

export interface OutputEntry {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The output file's lines, skipping any that are not a JSON object. */
export function outputEntries(text: string): OutputEntry[] {
  return text.split("\n").flatMap((line) => {
    try {
      const entry: unknown = JSON.parse(line);
      return typeof entry === "object" && entry !== null && typeof (entry as OutputEntry).type === "string"
        ? [entry as OutputEntry]
        : [];
    } catch {
      return [];
    }
  });
}

/**
 * The JSON value in `text` that starts on a line of its own: wrangler may
 * print a blank line before it, or a notice after it.
 */
function jsonIn(text: string): unknown {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => /^[[{]/.test(line));
  if (start < 0) return undefined;
  for (let end = lines.length; end > start; end -= 1) {
    try {
      return JSON.parse(lines.slice(start, end).join("\n"));
    } catch {
      // Not complete up to here, or followed by more than JSON: try a line less.
    }
  }
  return undefined;
}

export type Login = { readonly loggedIn: false } | { readonly loggedIn: true; readonly email: string | undefined };

/**
 * `wrangler whoami --json`: `{"loggedIn":false}` (and exit 1) when not
 * logged in. Undefined when it answered no such JSON (it failed otherwise).
 */
export function loginOf(ran: Ran): Login | undefined {
  const answer = jsonIn(ran.stdout) as { loggedIn?: unknown; email?: unknown } | undefined;
  if (answer?.loggedIn === false) return { loggedIn: false };
  if (answer?.loggedIn !== true) return undefined;
  return { loggedIn: true, email: typeof answer.email === "string" ? answer.email : undefined };
}

/** `wrangler secret list --format json`: an array of {name, type}. Undefined when it is not that. */
export function secretNamesOf(ran: Ran): string[] | undefined {
  const answer = jsonIn(ran.stdout);
  if (!Array.isArray(answer)) return undefined;
  return answer.flatMap((secret: { name?: unknown }) => (typeof secret?.name === "string" ? [secret.name] : []));
}

/**
 * `wrangler queues info <name>`: the consumers it lists (`worker:<script>`,
 * `r2_bucket:<bucket>`, or an HTTP pull consumer), or null when the answer is
 * about another queue.
 */
export function queueConsumersOf(queue: string, ran: Ran): string[] | null {
  const named = /^Queue Name: (.+)$/m.exec(ran.stdout)?.[1]?.trim();
  if (named !== queue) return null;
  const listed = /^Consumers: (.+)$/m.exec(ran.stdout)?.[1];
  if (listed === undefined) return [];
  if (listed.startsWith("HTTP Pull Consumer")) return ["an HTTP pull consumer"];
  // wrangler prints a Worker consumer by its script; one the API names otherwise comes out as
  // `worker:undefined`, which cannot be told from ours, so it is left for wrangler deploy to judge.
  return listed
    .split(",")
    .map((consumer) => consumer.trim())
    .filter((consumer) => consumer !== "worker:undefined");
}

/** Terminal colour codes, which wrangler prints even into a pipe. */
const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** The message wrangler failed with: its output file's, else the end of what it printed. */
export function failureOf(ran: Ran): string {
  const failed = ran.entries.find((entry) => entry.type === "command-failed");
  if (typeof failed?.message === "string" && failed.message.trim() !== "") return failed.message.trim();
  const printed = `${ran.stderr}\n${ran.stdout}`
    .replaceAll(COLOURS, "")
    .split("\n")
    .map((line) => line.replace(/^\s*✘ \[ERROR\]\s*/, "").trim())
    .filter((line) => line !== "");
  return printed.slice(-3).join(" ") || `it exited with status ${ran.status}`;
}

/** The failure means the thing looked up does not exist (yet): a queue, a D1 database, the Worker. */
export function isMissingQueue(message: string): boolean {
  return /^Queue ".+" does not exist/.test(message);
}

export function isMissingDatabase(message: string): boolean {
  return /^Couldn't find (?:a|an auto-provisioned) D1 DB/.test(message);
}

export function isMissingWorker(message: string): boolean {
  return /^Worker ".+" not found/.test(message);
}

const WORKERS_DEV = /^https:\/\/[a-z0-9.-]+\.workers\.dev$/;

/**
 * The workers.dev address `wrangler deploy` deployed to: from its `deploy`
 * entry's targets, else from the list it prints under "Deployed <name> triggers".
 */
export function workersDevUrlOf(ran: Ran): string | undefined {
  const deployed = ran.entries.find((entry) => entry.type === "deploy");
  const targets: unknown[] = Array.isArray(deployed?.targets)
    ? deployed.targets
    : ran.stdout.split("\n").map((line) => line.trim());
  return targets.find((target): target is string => typeof target === "string" && WORKERS_DEV.test(target));
}

export const NOT_LOGGED_IN =
  "wrangler is not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then `npm run deploy` again";

/**
 * A sentence saying what to do about a failed command: the failures a
 * newcomer meets get their own, anything else repeats wrangler's message.
 */
export function explainFailure(command: string, message: string): string {
  if (/not authenticated|not logged in|necessary to set a CLOUDFLARE_API_TOKEN/i.test(message)) return NOT_LOGGED_IN;
  if (/More than one account available/.test(message))
    return `wrangler can use more than one Cloudflare account and cannot ask which one here: run \`CLOUDFLARE_ACCOUNT_ID=<account id> npm run deploy\`. wrangler said: ${message}`;
  if (/workers\.dev subdomain/.test(message)) {
    const onboarding = /https:\/\/dash\.cloudflare\.com\/\S+\/workers\/onboarding/.exec(message)?.[0];
    return `your Cloudflare account has no workers.dev subdomain yet, so the Worker would have no address: choose one at ${onboarding ?? "https://dash.cloudflare.com (Workers & Pages)"}, once per account, then run \`npm run deploy\` again; what was created before this step is kept and reused`;
  }
  if (/namespace/i.test(message) && /already exists/i.test(message))
    return `a KV namespace of that name is left from an earlier deploy that stopped before the Worker existed, and wrangler will not make a second: delete it (\`npx wrangler kv namespace list\` shows its id; \`npx wrangler kv namespace delete --namespace-id <id>\`), then run \`npm run deploy\` again. wrangler said: ${message}`;
  return `\`${command}\` failed: ${message}. Fix what it says, then run \`npm run deploy\` again: what is already done is skipped`;
}
