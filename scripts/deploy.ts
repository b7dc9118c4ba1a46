// `npm run deploy`: a deployed demo in one command, on a machine where
// wrangler is logged in. It reads first and changes only what is missing, so a
// second run changes nothing but the uploaded code:
//
//   1. `npm run deploy:check`, offline: stops on a bad wrangler.toml or bundle.
//   2. Reads: who is logged in, whether each queue exists and who consumes
//      it, whether the D1 database exists, which secrets the Worker has.
//   3. Creates the missing queues (wrangler deploy would create only the
//      producer's), applies the migrations before `wrangler deploy` when the
//      database exists and after it when the deploy creates it (with the KV
//      namespace; wrangler.toml carries no ids), then sets the missing
//      secrets in one `wrangler secret bulk`: an MCP and an approver token for
//      one account (made here unless passed), and PUBLIC_BASE_URL.
//   4. Prints the new tokens, once, and the next steps.
//
// PUBLIC_BASE_URL is set as a secret, to the workers.dev address the first
// deploy printed: only a deploy tells that address, and `wrangler deploy`
// replaces every var with wrangler.toml's but keeps secrets, so a secret set
// once stays without a second deploy on every run, and `secret list` shows it
// is there. A PUBLIC_BASE_URL in wrangler.toml [vars] (a custom domain) wins:
// nothing is set then, and wrangler replaces an earlier secret with it.
//
// `--dry-run` prints every command of a first deploy, in order, and runs none.
// Steps that fail stop with a sentence saying what to do; run it again after.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseDeployArgs, USAGE } from "./lib/deploy-args.ts";
import { commandLine, type Described, describeSteps, dryRunLines, reads } from "./lib/deploy-commands.ts";
import { randomToken } from "./lib/deploy-credentials.ts";
import { deployTargetOf, type Observed, planDeploy } from "./lib/deploy-plan.ts";
import { reportLines } from "./lib/deploy-report.ts";
import { processRunner, type RunOptions } from "./lib/deploy-wrangler.ts";
import {
  explainFailure,
  failureOf,
  isMissingDatabase,
  isMissingQueue,
  isMissingWorker,
  loginOf,
  NOT_LOGGED_IN,
  queueConsumersOf,
  type Ran,
  secretNamesOf,
  workersDevUrlOf,
} from "./lib/wrangler-output.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function stop(message: string): never {
  console.error(`\nnpm run deploy stopped: ${message}`);
  process.exit(1);
}

const parsedArgs = parseDeployArgs(process.argv.slice(2), process.env);
if (!parsedArgs.ok) stop(parsedArgs.error.message);
const args = parsedArgs.value;
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

// Loaded only now: wrangler is a large module, and a refused option or --help needs none of it.
const { unstable_readConfig } = await import("wrangler");
const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") }, { hideWarnings: true });
const targetResult = deployTargetOf(config);
if (!targetResult.ok) stop(targetResult.error.message);
const target = targetResult.value;

if (args.dryRun) {
  for (const line of dryRunLines(target, args)) console.log(line);
  process.exit(0);
}

const runner = processRunner(root);
process.on("exit", () => runner.close());

/** Runs one described command, saying first what it is and why. */
async function run(described: Described, options: RunOptions = {}): Promise<Ran> {
  console.log(`\n$ ${commandLine(described.command)}    # ${described.purpose}`);
  return runner.run(described.command, options);
}

/** Runs a command that must succeed, showing its output; stops with a sentence when it fails. */
async function mustRun(described: Described, options: RunOptions = {}): Promise<Ran> {
  const ran = await run(described, { ...options, echo: true });
  if (ran.status !== 0) stop(explainFailure(commandLine(described.command), failureOf(ran)));
  return ran;
}

/** A read whose failure is an answer (the thing is missing) when `missing` says so. */
async function look(described: Described, missing: (message: string) => boolean): Promise<Ran | "missing"> {
  const ran = await run(described);
  if (ran.status === 0) return ran;
  const message = failureOf(ran);
  if (missing(message)) return "missing";
  return stop(explainFailure(commandLine(described.command), message));
}

const planned = reads(target);
await mustRun(planned.check);

const whoami = await run(planned.whoami);
const login = loginOf(whoami);
if (login === undefined) stop(explainFailure(commandLine(planned.whoami.command), failureOf(whoami)));
if (!login.loggedIn) stop(NOT_LOGGED_IN);
console.log(`  logged in${login.email ? ` as ${login.email}` : ""}`);

const queues = new Map<string, readonly string[] | null>();
for (const [at, queue] of target.queues.entries()) {
  const described = planned.queues[at];
  if (!described) throw new Error(`no read for the queue ${queue}`);
  const answer = await look(described, isMissingQueue);
  const consumers = answer === "missing" ? null : queueConsumersOf(queue, answer);
  queues.set(queue, consumers);
  console.log(
    consumers === null
      ? `  ${queue}: missing`
      : `  ${queue}: exists, consumed by ${consumers.length > 0 ? consumers.join(", ") : "nothing yet"}`,
  );
}

const database = await look(planned.database, isMissingDatabase);
console.log(`  ${target.database.name}: ${database === "missing" ? "not created yet" : "exists"}`);

const secretList = await look(planned.secrets, isMissingWorker);
const secretNames = secretList === "missing" ? [] : secretNamesOf(secretList);
if (secretNames === undefined) stop(`\`wrangler secret list\` answered something other than a JSON list of secrets`);
console.log(`  secrets: ${secretNames.length > 0 ? secretNames.join(", ") : "none"}`);

const observed: Observed = { queues, databaseExists: database !== "missing", secrets: new Set(secretNames) };
const plan = planDeploy(target, observed, args, { mcp: randomToken(), approver: randomToken() });
if (!plan.ok) stop(plan.error.message);
if (plan.value.notes.length > 0) console.log("");
for (const note of plan.value.notes) console.log(`  ${note}`);

let workersDev: string | undefined;
for (const [at, described] of describeSteps(plan.value, target).entries()) {
  const step = plan.value.steps[at];
  if (step?.kind === "set_secrets") {
    const values: Record<string, string> = { ...step.values };
    if (step.publicBaseUrl && workersDev) values.PUBLIC_BASE_URL = workersDev;
    await mustRun(described, { input: JSON.stringify(values) });
  } else {
    const ran = await mustRun(described);
    if (step?.kind !== "deploy") continue;
    workersDev = workersDevUrlOf(ran);
    const needsAddress = plan.value.steps.some((later) => later.kind === "set_secrets" && later.publicBaseUrl);
    if (needsAddress && workersDev === undefined)
      stop(
        "`wrangler deploy` named no workers.dev address (is workers_dev off in wrangler.toml?), so PUBLIC_BASE_URL cannot be set to it: set PUBLIC_BASE_URL in wrangler.toml [vars] to the https address people reach the Worker at, then run `npm run deploy` again",
      );
  }
}

console.log("");
const baseUrl = target.publicBaseUrl ?? workersDev ?? "https://<your Worker's address>";
const report = reportLines({ worker: target.worker, account: args.account, baseUrl, newTokens: plan.value.newTokens });
for (const line of report) console.log(line);
