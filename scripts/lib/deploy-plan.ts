// What `npm run deploy` does, decided from what it found on the account: a
// pure plan, so the order of the steps and every refusal are tested without a
// process or a network. scripts/deploy.ts observes, asks for the plan, and
// runs it; the dry run prints the plan of a first deploy.
import { fail, ok, type Result } from "../../src/core/errors.ts";
import { TOKEN_SECRET, type TokenKind, tokenSecret } from "./deploy-credentials.ts";

/** What the deploy needs from wrangler.toml. */
export interface DeployTarget {
  readonly worker: string;
  /** The D1 binding the migrations go to, and the database wrangler links by name. */
  readonly database: { readonly binding: string; readonly name: string };
  /** Every queue the Worker sends to or consumes, dead-letter queues included. */
  readonly queues: readonly string[];
  /** PUBLIC_BASE_URL from [vars], when the maintainer set one (a custom domain). */
  readonly publicBaseUrl: string | undefined;
}

/** wrangler.toml as `unstable_readConfig` reads it, as far as the deploy looks. */
export interface WranglerConfigView {
  readonly name?: string | undefined;
  readonly vars: Readonly<Record<string, unknown>>;
  readonly d1_databases: readonly { readonly binding: string; readonly database_name?: string | undefined }[];
  readonly queues: {
    readonly producers?: readonly { readonly queue: string }[] | undefined;
    readonly consumers?:
      | readonly { readonly queue: string; readonly dead_letter_queue?: string | undefined }[]
      | undefined;
  };
}

export function deployTargetOf(config: WranglerConfigView): Result<DeployTarget> {
  const database = config.d1_databases[0];
  if (!config.name) return fail("not_configured", "wrangler.toml has no name: the Worker needs one to be deployed");
  if (!database?.database_name)
    return fail(
      "not_configured",
      "wrangler.toml's D1 binding needs a database_name: wrangler links the database by it",
    );
  const queues = [
    ...(config.queues.producers ?? []).map((producer) => producer.queue),
    ...(config.queues.consumers ?? []).flatMap((consumer) =>
      consumer.dead_letter_queue ? [consumer.queue, consumer.dead_letter_queue] : [consumer.queue],
    ),
  ];
  const publicBaseUrl = config.vars.PUBLIC_BASE_URL;
  return ok({
    worker: config.name,
    database: { binding: database.binding, name: database.database_name },
    queues: [...new Set(queues)],
    publicBaseUrl: typeof publicBaseUrl === "string" ? publicBaseUrl : undefined,
  });
}

/** What the reads found on the account. */
export interface Observed {
  /**
   * Per queue: its consumers as `wrangler queues info` names them (`worker:<name>`), or null when it does not exist.
   */
  readonly queues: ReadonlyMap<string, readonly string[] | null>;
  readonly databaseExists: boolean;
  /** The secrets the Worker has (none before its first deploy). */
  readonly secrets: ReadonlySet<string>;
}

/** A first deploy: nothing on the account yet. The dry run plans this. */
export function nothingYet(target: DeployTarget): Observed {
  return { queues: new Map(target.queues.map((queue) => [queue, null])), databaseExists: false, secrets: new Set() };
}

export interface DeployOptions {
  readonly account: string;
  /** Tokens the person passed, already checked (deploy-args.ts); a missing one is generated. */
  readonly passed: Readonly<Partial<Record<TokenKind, string>>>;
  /** In a CI build (Workers Builds, for the Deploy button) no token is made: it would be printed into the build log. */
  readonly ci: boolean;
  /** Whether the deployed demo holds the demo orders (DEMO_DATA on); wrangler.toml leaves it off. */
  readonly demoData: boolean;
}

export type Step =
  | { readonly kind: "create_queue"; readonly queue: string }
  | { readonly kind: "migrate" }
  | { readonly kind: "deploy"; readonly demoData: boolean }
  | {
      readonly kind: "set_secrets";
      /** MCP_TOKENS / APPROVER_TOKENS values to set. */
      readonly values: Readonly<Record<string, string>>;
      /** Also PUBLIC_BASE_URL, to the workers.dev address the deploy printed. */
      readonly publicBaseUrl: boolean;
    };

/** A token this run sets, to be printed once after it succeeded. */
export interface NewToken {
  readonly kind: TokenKind;
  readonly token: string;
  readonly generated: boolean;
}

export interface Plan {
  readonly steps: readonly Step[];
  readonly newTokens: readonly NewToken[];
  /** Sentences about what is kept or skipped, printed before the steps run. */
  readonly notes: readonly string[];
}

const KINDS: readonly TokenKind[] = ["mcp", "approver"];

/** A queue consumed by another Worker cannot be ours too: a queue has one consumer. */
function takenQueues(target: DeployTarget, observed: Observed): string[] {
  return target.queues.flatMap((queue) => {
    const others = (observed.queues.get(queue) ?? []).filter((consumer) => consumer !== `worker:${target.worker}`);
    if (others.length === 0) return [];
    return [
      `the queue ${queue} already exists on this account and is consumed by ${others.join(", ")}; a queue has one consumer, so ${target.worker} cannot take it. Remove that consumer (\`npx wrangler queues consumer remove ${queue} <worker>\`), or rename this Worker's queues in wrangler.toml and src/outbox/messages.ts, then run \`npm run deploy\` again`,
    ];
  });
}

/**
 * The steps, in order: missing queues first (wrangler deploy refuses a
 * consumer of a queue that does not exist); the migrations before the deploy
 * when the database exists, so new code never meets an old schema, and after
 * it when the deploy is what creates the database; then the secrets that are
 * missing, PUBLIC_BASE_URL among them, since only the deploy tells the
 * workers.dev address. `fresh` holds a generated token per kind, used where
 * a token is missing and none was passed.
 */
export function planDeploy(
  target: DeployTarget,
  observed: Observed,
  options: DeployOptions,
  fresh: Readonly<Record<TokenKind, string>>,
): Result<Plan> {
  const taken = takenQueues(target, observed);
  if (taken.length > 0) return fail("conflict", taken.join("; "));

  const notes: string[] = [];
  const newTokens: NewToken[] = [];
  for (const kind of KINDS) {
    const secret = TOKEN_SECRET[kind];
    const passed = options.passed[kind];
    if (observed.secrets.has(secret)) {
      notes.push(
        passed === undefined
          ? `${secret} is already set: kept`
          : `${secret} is already set: kept, and the token you passed was not used (to replace it, \`npx wrangler secret delete ${secret}\`, then \`npm run deploy\` again)`,
      );
    } else if (passed !== undefined) {
      newTokens.push({ kind, token: passed, generated: false });
    } else if (options.ci) {
      notes.push(
        `${secret} is not set, and in a CI build no token is made, since it would be printed into the build log: set it in the Worker's settings (the Deploy to Cloudflare button asks for it), or pass it in ORDER_OPS_${kind.toUpperCase()}_TOKEN`,
      );
    } else {
      newTokens.push({ kind, token: fresh[kind], generated: true });
    }
  }
  const publicBaseUrl = target.publicBaseUrl === undefined && !observed.secrets.has("PUBLIC_BASE_URL");
  if (target.publicBaseUrl !== undefined)
    notes.push(`PUBLIC_BASE_URL is ${target.publicBaseUrl}, from wrangler.toml [vars]`);
  else if (!publicBaseUrl) notes.push("PUBLIC_BASE_URL is already set: kept");

  const migrate: Step = { kind: "migrate" };
  const steps: Step[] = [
    ...target.queues.flatMap((queue): Step[] =>
      observed.queues.get(queue) === null ? [{ kind: "create_queue", queue }] : [],
    ),
    ...(observed.databaseExists ? [migrate] : []),
    { kind: "deploy", demoData: options.demoData },
    ...(observed.databaseExists ? [] : [migrate]),
  ];
  if (newTokens.length > 0 || publicBaseUrl) {
    const values = Object.fromEntries(
      newTokens.map(({ kind, token }) => [TOKEN_SECRET[kind], tokenSecret(kind, options.account, token)]),
    );
    steps.push({ kind: "set_secrets", values, publicBaseUrl });
  }
  return ok({ steps, newTokens, notes });
}
