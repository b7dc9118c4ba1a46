// What the fake `wrangler` answers: the commands scripts/deploy.ts runs, with
// the texts and exit codes wrangler 4.156.2 gives (read from its source in
// node_modules/wrangler), and the entries it writes to its output file. Each
// answer also says how the account changed.
import { readdirSync } from "node:fs";
import type { FakeAccount } from "./fake-account.ts";

export interface Answer {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What wrangler appends to WRANGLER_OUTPUT_FILE_PATH. */
  readonly entries: readonly object[];
}

interface Outcome {
  readonly account: FakeAccount;
  readonly answer: Answer;
}

const BANNER = "\n ⛅️ wrangler 4.156.2\n───────────────────────────────────────────────\n";

function succeed(account: FakeAccount, stdout: string, entries: readonly object[] = []): Outcome {
  return { account, answer: { status: 0, stdout, stderr: "", entries } };
}

/** A UserError as wrangler prints and records it. */
function failWith(account: FakeAccount, message: string, stdout = ""): Outcome {
  const stderr = `\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m \u001b[1m${message}\u001b[0m\n`;
  return { account, answer: { status: 1, stdout, stderr, entries: [{ type: "command-failed", version: 1, message }] } };
}

const NOT_LOGGED_IN =
  "In a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN environment variable for wrangler to work. Please go to https://developers.cloudflare.com/fundamentals/api/get-started/create-token/ for instructions on how to create an api token, and assign its value to CLOUDFLARE_API_TOKEN.\n\nTo continue without logging in, rerun this command with `--temporary`. Wrangler will use a temporary account and print a claim URL.";

function missingQueue(queue: string): string {
  return `Queue "${queue}" does not exist. To create it, run: wrangler queues create ${queue}`;
}

function missingDatabase(account: FakeAccount): string {
  const { binding, name } = account.config.database;
  return `Couldn't find a D1 DB named '${name}' (bound as '${binding}') in the API. Run 'wrangler d1 create ${name}' to create it.`;
}

/** Every migration in the repository's migrations/, in order. */
function migrationNames(): string[] {
  return readdirSync("migrations")
    .filter((file) => file.endsWith(".sql"))
    .sort();
}

function queueInfo(account: FakeAccount, queue: string): Outcome {
  const consumers = account.queues[queue];
  if (consumers === undefined) return failWith(account, missingQueue(queue), BANNER);
  const worker = `worker:${account.config.worker}`;
  const producers = account.config.producers.includes(queue) && account.worker ? [worker] : [];
  const lines = [
    `Queue Name: ${queue}`,
    "Queue ID: 3f0c5f9b2a8e4d6c9b1a7e5d3c2b1a09",
    "Created On: 2026-12-01T10:00:00.000000Z",
    "Last Modified: 2026-12-01T10:00:00.000000Z",
    `Number of Producers: ${producers.length}`,
    ...(producers.length > 0 ? [`Producers:${producers.map((p) => ` ${p}`).toString()}`] : []),
    `Number of Consumers: ${consumers.length}`,
    ...(consumers.length > 0 ? [`Consumers: ${consumers.toString()}`] : []),
  ];
  return succeed(account, `${BANNER}${lines.join("\n")}\n`);
}

function migrate(account: FakeAccount): Outcome {
  const name = account.config.database.name;
  const applied = account.databases[name];
  if (applied === undefined) return failWith(account, missingDatabase(account), BANNER);
  const pending = migrationNames().filter((migration) => !applied.includes(migration));
  if (pending.length === 0) return succeed(account, `${BANNER}✅ No migrations to apply!\n`);
  const databases = { ...account.databases, [name]: [...applied, ...pending] };
  const table = pending.map((migration) => `│ ${migration} │ ✅ │`).join("\n");
  return succeed({ ...account, databases }, `${BANNER}Migrations to be applied:\n${table}\n`);
}

/**
 * In wrangler's order: queues the consumers need, the workers.dev subdomain, the resources, the upload, the triggers.
 */
function deploy(account: FakeAccount): Outcome {
  const { worker: name, database, queues, producers } = account.config;
  for (const queue of queues) {
    if (!producers.includes(queue) && account.queues[queue] === undefined)
      return failWith(account, missingQueue(queue), BANNER);
  }
  if (account.worker === null && account.subdomain === null) {
    const onboarding = `https://dash.cloudflare.com/${account.accounts[0]?.id}/workers/onboarding`;
    return failWith(
      account,
      `You can either deploy your worker to one or more routes by specifying them in your wrangler.toml file, or register a workers.dev subdomain here:\n${onboarding}`,
      `${BANNER}▲ [WARNING] You need to register a workers.dev subdomain before publishing to workers.dev\n`,
    );
  }
  const kvNamespace = `${name}-oauth-kv`;
  const kvNamespaces = account.worker ? account.kvNamespaces : [...account.kvNamespaces, kvNamespace];
  const databases =
    database.name in account.databases ? account.databases : { ...account.databases, [database.name]: [] };
  const ours = `worker:${name}`;
  const withQueues = Object.fromEntries(
    queues.map((queue) => [queue, [...new Set([...(account.queues[queue] ?? []), ours])]]),
  );
  const worker = { secrets: account.worker?.secrets ?? {}, uploads: (account.worker?.uploads ?? 0) + 1 };
  const after: FakeAccount = {
    ...account,
    kvNamespaces,
    databases,
    queues: { ...account.queues, ...withQueues },
    worker,
  };
  const url = `https://${name}.${account.subdomain}.workers.dev`;
  const targets = [
    url,
    "schedule: * * * * *",
    ...producers.map((queue) => `Producer for ${queue}`),
    ...queues.map((queue) => `Consumer for ${queue}`),
  ];
  const stdout = [
    BANNER,
    "Total Upload: 1521.32 KiB / gzip: 394.56 KiB",
    `Uploaded ${name} (3.21 sec)`,
    `Deployed ${name} triggers (1.02 sec)`,
    ...targets.map((target) => `  ${target}`),
    "Current Version ID: 5d2c1e0f-8b7a-4c6d-9e5f-3a2b1c0d9e8f",
  ].join("\n");
  return succeed(after, `${stdout}\n`, [{ type: "deploy", version: 1, worker_name: name, targets }]);
}

function secretList(account: FakeAccount): Outcome {
  if (account.worker === null)
    return failWith(
      account,
      `Worker "${account.config.worker}" not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.\nOtherwise, check that the Worker name is correct and you're logged into the right account.`,
    );
  const listed = Object.keys(account.worker.secrets).map((name) => ({ name, type: "secret_text" }));
  return succeed(account, `${JSON.stringify(listed, null, "  ")}\n`);
}

function secretBulk(account: FakeAccount, input: string): Outcome {
  const content = JSON.parse(input) as Record<string, string>;
  // Like wrangler, a Worker that does not exist yet is created as a draft to hold them.
  const before = account.worker ?? { secrets: {}, uploads: 0 };
  const worker = { ...before, secrets: { ...before.secrets, ...content } };
  const created = Object.keys(content).map((key) => `✨ Successfully created secret for key: ${key}`);
  const stdout = `${BANNER}🌀 Processing the secrets for the Worker "${account.config.worker}"\n${created.join("\n")}\n\nFinished processing secrets file:\n✨ ${created.length} secrets successfully created\n`;
  return succeed({ ...account, worker }, stdout);
}

export function answerWrangler(
  account: FakeAccount,
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Outcome {
  // The words of the command, without its flags (and the values of --format and --var).
  const command = args
    .filter((arg, at) => !arg.startsWith("--") && args[at - 1] !== "--format" && args[at - 1] !== "--var")
    .join(" ");
  if (command === "whoami") {
    if (!account.loggedIn)
      return { account, answer: { status: 1, stdout: '\n{"loggedIn":false}\n', stderr: "", entries: [] } };
    const who = { loggedIn: true, authType: "OAuth Token", email: account.email, accounts: account.accounts };
    return succeed(account, `${JSON.stringify(who, null, 4)}\n`);
  }
  if (!account.loggedIn) return failWith(account, NOT_LOGGED_IN, BANNER);
  if (account.accounts.length > 1 && !env.CLOUDFLARE_ACCOUNT_ID) {
    const listed = account.accounts.map((one) => `  \`${one.name}\`: \`${one.id}\``).join("\n");
    return failWith(
      account,
      `More than one account available but unable to select one in non-interactive mode.\nPlease set the appropriate \`account_id\` in your Wrangler configuration file file or assign it to the \`CLOUDFLARE_ACCOUNT_ID\` environment variable.\nAvailable accounts are (\`<name>\`: \`<account_id>\`):\n${listed}`,
      BANNER,
    );
  }
  const queue = args[2] ?? "";
  const database = account.databases[account.config.database.name];
  switch (command) {
    case `queues info ${queue}`:
      return queueInfo(account, queue);
    case `queues create ${queue}`:
      if (account.queues[queue] !== undefined)
        return failWith(account, `the fake wrangler was asked to create ${queue}, which exists: the deploy should not`);
      return succeed(
        { ...account, queues: { ...account.queues, [queue]: [] } },
        `${BANNER}🌀 Creating queue '${queue}'\n✅ Created queue '${queue}'\n`,
      );
    case `d1 info ${account.config.database.binding}`:
      if (database === undefined) return failWith(account, missingDatabase(account));
      return succeed(account, `${JSON.stringify({ uuid: "1c2d3e4f", name: account.config.database.name }, null, 2)}\n`);
    case `d1 migrations apply ${account.config.database.binding}`:
      return migrate(account);
    case "deploy":
      return deploy(account);
    case "secret list":
      return secretList(account);
    case "secret bulk":
      return secretBulk(account, input);
    default:
      return failWith(account, `the fake wrangler does not know \`wrangler ${args.join(" ")}\``);
  }
}
