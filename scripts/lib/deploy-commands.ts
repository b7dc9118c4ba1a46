// The wrangler (and npm) command lines `npm run deploy` runs, each with the
// one line that says what it is for. The real run and the dry run print from
// here, so what the dry run shows is what a deploy runs.
import { type DeployOptions, type DeployTarget, nothingYet, type Plan, planDeploy, type Step } from "./deploy-plan.ts";

export type Command = readonly string[];

export interface Described {
  readonly command: Command;
  readonly purpose: string;
}

/** Offline: deploy:check builds the bundle and checks wrangler.toml, the types and the cards. */
export const CHECK: Command = ["npm", "run", "deploy:check"];
export const WHOAMI: Command = ["wrangler", "whoami", "--json"];
export const SECRET_LIST: Command = ["wrangler", "secret", "list", "--format", "json"];

export function queueInfo(queue: string): Command {
  return ["wrangler", "queues", "info", queue];
}

export function databaseInfo(target: DeployTarget): Command {
  return ["wrangler", "d1", "info", target.database.binding, "--json"];
}

/** The reads, each described; they run before anything is changed, in the order `readsInOrder` gives. */
export interface Reads {
  readonly check: Described;
  readonly whoami: Described;
  /** One per queue of the target, in its order. */
  readonly queues: readonly Described[];
  readonly database: Described;
  readonly secrets: Described;
}

export function reads(target: DeployTarget): Reads {
  return {
    check: { command: CHECK, purpose: "build and check the bundle, offline; stop on any problem" },
    whoami: { command: WHOAMI, purpose: "stop unless wrangler is logged in" },
    queues: target.queues.map((queue) => ({
      command: queueInfo(queue),
      purpose: "does the queue exist, and which Worker consumes it?",
    })),
    database: { command: databaseInfo(target), purpose: `does the D1 database ${target.database.name} exist yet?` },
    secrets: { command: SECRET_LIST, purpose: "which secrets the Worker has (none before its first deploy)" },
  };
}

export function readsInOrder(planned: Reads): Described[] {
  return [planned.check, planned.whoami, ...planned.queues, planned.database, planned.secrets];
}

/** The names a set_secrets step sets, in the order it sets them. */
export function secretNames(step: Extract<Step, { kind: "set_secrets" }>): string[] {
  return [...Object.keys(step.values), ...(step.publicBaseUrl ? ["PUBLIC_BASE_URL"] : [])];
}

export function stepCommand(step: Step, target: DeployTarget): Command {
  switch (step.kind) {
    case "create_queue":
      return ["wrangler", "queues", "create", step.queue];
    case "migrate":
      return ["wrangler", "d1", "migrations", "apply", target.database.binding, "--remote"];
    case "deploy":
      // A var on the command line wins over wrangler.toml's [vars] for this upload.
      return step.demoData ? ["wrangler", "deploy", "--var", "DEMO_DATA:on"] : ["wrangler", "deploy"];
    case "set_secrets":
      // The values go in on stdin: never in the command line, a file or wrangler's output.
      return ["wrangler", "secret", "bulk"];
  }
}

/** The plan's steps, each with its command and why it runs. */
export function describeSteps(plan: Plan, target: DeployTarget): Described[] {
  const deployAt = plan.steps.findIndex((step) => step.kind === "deploy");
  const createsDatabase = plan.steps.findIndex((step) => step.kind === "migrate") > deployAt;
  return plan.steps.map((step) => ({
    command: stepCommand(step, target),
    purpose: stepPurpose(step, createsDatabase),
  }));
}

/** `createsDatabase`: the database does not exist yet, so the deploy creates it and the migrations follow it. */
function stepPurpose(step: Step, createsDatabase: boolean): string {
  switch (step.kind) {
    case "create_queue":
      return `the queue ${step.queue} does not exist yet`;
    case "migrate":
      return createsDatabase
        ? "the deploy created the database: apply every migration"
        : "apply new migrations before the new code runs";
    case "deploy":
      return `${
        createsDatabase
          ? "upload the Worker; wrangler creates the D1 database, and the KV namespace the first time"
          : "upload the Worker, bound to the database and KV namespace it has"
      }${step.demoData ? "; DEMO_DATA on loads the demo orders on the first request" : ""}`;
    case "set_secrets": {
      const names = `set ${secretNames(step).join(", ")}, as JSON on stdin`;
      return step.publicBaseUrl ? `${names}; PUBLIC_BASE_URL is the address the deploy reported` : names;
    }
  }
}

/** `a b c` as a person would type it. */
export function commandLine(command: Command): string {
  return command.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(" ");
}

/** Numbered lines, the commands padded so their purposes line up. */
export function listing(described: readonly Described[], firstNumber = 1): string[] {
  const width = Math.max(...described.map(({ command }) => commandLine(command).length));
  return described.map(
    ({ command, purpose }, at) =>
      `${String(at + firstNumber).padStart(4)}. ${commandLine(command).padEnd(width)}   ${purpose}`,
  );
}

/**
 * What `npm run deploy -- --dry-run` prints: every command a first deploy
 * runs, in order (the plan for an account with nothing on it yet), and how a
 * later run differs. It runs none of them.
 */
export function dryRunLines(target: DeployTarget, options: DeployOptions): string[] {
  const planned = planDeploy(target, nothingYet(target), options, { mcp: "(made here)", approver: "(made here)" });
  if (!planned.ok) return [`npm run deploy would stop: ${planned.error.message}`];
  const before = readsInOrder(reads(target));
  return [
    `npm run deploy -- --dry-run: the commands a first deploy of ${target.worker} runs, in order. Nothing was run.`,
    "",
    ...listing([...before, ...describeSteps(planned.value, target)]),
    "",
    ...planned.value.notes,
    ...windowLines(options),
    "A later run makes the same reads and creates only what is missing: no queue that exists, the migrations before the deploy (new ones only), and `wrangler secret bulk` only for a secret that is not set. Run twice in a row, the second run uploads the same code again and changes nothing else.",
  ];
}

/**
 * What a person should know before the real run: when the tokens it makes
 * are shown, and what the Worker serves between the upload and the secrets.
 */
function windowLines(options: DeployOptions): string[] {
  const made = (["mcp", "approver"] as const).filter((kind) => options.passed[kind] === undefined);
  return [
    ...(options.ci || made.length === 0
      ? []
      : [
          "The tokens it makes are printed once, at the end, and never again: copy them then. They are kept only as the Worker's secrets, which no command reads back; to replace a lost one, delete its secret and run `npm run deploy` again.",
        ]),
    "Between the upload (`wrangler deploy`) and the secrets (`wrangler secret bulk`) the Worker is live at its workers.dev address with no tokens and no PUBLIC_BASE_URL: it then answers only /health, and every other route answers 503 naming what is missing, so nothing is served without a token.",
  ];
}
