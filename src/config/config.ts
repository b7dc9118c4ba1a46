import { z } from "zod/v4";
import { AccountIdSchema } from "../core/account-id";
import { fail, ok, type Result } from "../core/errors";
import type { Scope } from "../core/scopes";
import { describeIssues } from "../core/zod-issues";
import { ApproverTokenEntry, jsonTokenMap, McpTokenEntry } from "./token-maps";
import { deploymentProblems, isLoopbackUrl } from "./deployment-checks";
import { intakeFaultProblems, IntakeFaultsSchema, type IntakeFaults } from "./intake-faults";
import { orderApiUrlConfig, orderApiUrlProblems, OrderApiTokenSchema, OrderApiUrlSchema, type OrderApiUrl } from "./order-api-url";
import { WEBHOOK_VARS, webhookProblems, webhooksConfig, type Webhooks } from "./webhooks";

/**
 * Configuration is parsed once per isolate from the Worker's vars and secrets.
 * A bad value turns into one readable message that names the variable and what
 * to set, instead of a surprise deep inside a request.
 */

const PRODUCTION_MIN_TOKEN_LENGTH = 32;

/** `wrangler dev`'s default address; `npm run dev` passes the real one when the port differs. */
const DEVELOPMENT_BASE_URL = "http://localhost:8787";

/** Hostnames a local client reaches `wrangler dev` by. */
const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"] as const;

/** The largest MAX_BATCH a deployment may configure. */
const MAX_BATCH_CEILING = 10_000;

const onOff = z
  .enum(["on", "off", "true", "false", "1", "0"], { message: 'use "on" or "off"' })
  .transform((v) => v === "on" || v === "true" || v === "1");

function boundedInt(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

const EnvironmentSchema = z.enum(["development", "production"]);

const EnvSchema = z.object({
  ENVIRONMENT: EnvironmentSchema.default("production"),
  MAX_BATCH: boundedInt(1, MAX_BATCH_CEILING).default(100),
  PROPOSAL_TTL_MINUTES: boundedInt(1, 24 * 60).default(15),
  MAX_OPEN_PROPOSALS: boundedInt(1, 10_000).default(50),
  SEND_CONCURRENCY: boundedInt(1, 32).default(8),
  MAX_RUN_RATE: boundedInt(1, 10_000).default(50),
  MAX_RUN_SECONDS: boundedInt(1, 24 * 60 * 60).default(900),
  MAX_RUN_ORDERS: boundedInt(1, 1_000_000).default(20_000),
  MAX_ACTIVE_RUNS: boundedInt(1, 10).default(1),
  RUN_PAUSE_SECONDS: boundedInt(1, 3600).default(60),
  MAX_IN_FLIGHT: boundedInt(1, 1000).default(64),
  RUN_MAX_LATENESS_MS: boundedInt(10, 60_000).default(1000),
  RUN_SHARD_RATE: boundedInt(1, 10_000).default(250),
  MAX_RUN_SHARDS: boundedInt(1, 64).default(8),
  SYNTH_ORDERS_PER_MINUTE: boundedInt(1, 1_000_000).default(6000),
  DEMO_TOOLS: onOff.default(false),
  RATE_LIMITS: onOff.default(true),
  MCP_TOKENS: jsonTokenMap(McpTokenEntry).optional(),
  APPROVER_TOKENS: jsonTokenMap(ApproverTokenEntry).optional(),
  ALLOWED_ORIGINS: z
    .string()
    .transform((raw) => raw.split(",").map((o) => o.trim()).filter((o) => o !== ""))
    .pipe(z.array(z.url({ message: "each origin must look like https://app.example.com" })))
    .optional(),
  ALLOWED_HOSTS: z
    .string()
    .transform((raw) => raw.split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== ""))
    .pipe(z.array(z.string().regex(/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/, "each host must be a bare hostname like mcp.example.com, without scheme, port or path")))
    .optional(),
  CONFORMANCE_FIXTURES: onOff.default(false),
  PUBLIC_INTAKE_ACCOUNT: AccountIdSchema.optional(),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, message: "must be the Worker's public URL, like https://order-ops.example.com" })
    .transform((url, ctx) => {
      const parsed = new URL(url);
      if (parsed.pathname !== "/" || parsed.search !== "") {
        ctx.addIssue({ code: "custom", message: "must be an origin without a path, like https://order-ops.example.com" });
        return z.NEVER;
      }
      // The canonical spelling (lowercase host, no default port): OAuth compares issuers and resources exactly.
      return parsed.origin;
    })
    .optional(),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: boundedInt(60, 24 * 60 * 60).default(60 * 60),
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: boundedInt(60 * 60, 90 * 24 * 60 * 60).default(30 * 24 * 60 * 60),
  ORDER_API_URL: OrderApiUrlSchema.optional(),
  ORDER_API_TOKEN: OrderApiTokenSchema.optional(),
  INTAKE_FAULTS: IntakeFaultsSchema.optional(),
  INTAKE_FAULTS_IN_PRODUCTION: onOff.default(false),
  ...WEBHOOK_VARS,
});

export interface Operator {
  readonly account: string;
  readonly operator: string;
}

/** An MCP_TOKENS entry: the operator, and what the token may do (every scope unless narrowed). */
export interface McpTokenHolder extends Operator {
  readonly scopes: readonly Scope[];
}

export interface Approver {
  readonly account: string;
  readonly approver: string;
}

export interface Config {
  readonly environment: z.infer<typeof EnvironmentSchema>;
  readonly maxBatch: number;
  readonly proposalTtlMinutes: number;
  /** Open (pending or approved) proposals one account may hold at once. */
  readonly maxOpenProposals: number;
  readonly sendConcurrency: number;
  /**
   * Traffic runs: the caps on start_traffic_run (orders per second, seconds,
   * orders per run, runs at once per account), how long a run waits for an
   * unreachable target, and how its generator works: requests in flight per
   * shard, the lateness after which an order is dropped, and the rate one
   * shard is given before a run fans out over more (at most maxShards).
   */
  readonly runs: {
    readonly maxRate: number;
    readonly maxSeconds: number;
    readonly maxOrders: number;
    readonly maxActive: number;
    readonly pauseSeconds: number;
    readonly maxInFlight: number;
    readonly maxLatenessMs: number;
    readonly shardRate: number;
    readonly maxShards: number;
  };
  readonly demoTools: boolean;
  /** Per-credential request limits (the [[ratelimits]] bindings), and the synthetic order budget below. */
  readonly rateLimits: boolean;
  /** Synthetic orders (batches and runs together) one account may send per minute, while rateLimits is on. */
  readonly syntheticOrdersPerMinute: number;
  /** Empty when MCP_TOKENS is unset: /mcp then fails closed. */
  readonly mcpTokens: ReadonlyMap<string, McpTokenHolder>;
  readonly approverTokens: ReadonlyMap<string, Approver>;
  readonly allowedOrigins: readonly string[];
  /**
   * Hostnames /mcp answers to (DNS-rebinding protection): the host of
   * PUBLIC_BASE_URL, ALLOWED_HOSTS (custom domains), and localhost in development.
   */
  readonly allowedHosts: readonly string[];
  /** Registers the MCP conformance suite's fixture tools, resources and prompts; development only. */
  readonly conformanceFixtures: boolean;
  /** The account unauthenticated /api callers act as; unset means /api needs a token. */
  readonly publicIntakeAccount: string | undefined;
  /**
   * Where people reach this Worker, without a trailing slash. Links handed to
   * models and people (approval pages) are built from it, never from the
   * request's Host header, which a caller controls.
   */
  readonly publicBaseUrl: string;
  /**
   * The OAuth authorization server: its issuer is publicBaseUrl, which OAuth
   * requires to be https (or this machine). Undefined only in development
   * with a plain-http LAN address, where static tokens still work.
   */
  readonly oauth:
    | { readonly issuer: string; readonly accessTokenTtlSeconds: number; readonly refreshTokenTtlSeconds: number }
    | undefined;
  /** Where synthetic traffic goes instead of the ORDER_API binding; undefined means the binding. */
  readonly orderApiUrl: OrderApiUrl | undefined;
  /** Latency, failures and stalls the built-in intake API adds to order intake; undefined means none. */
  readonly intakeFaults: IntakeFaults | undefined;
  /** Where the outbox delivers proposal and order events; a destination left undefined gets none. */
  readonly webhooks: Webhooks;
}

const CONFIG_HELP: Record<string, string> = {
  MCP_TOKENS:
    'set it with `wrangler secret put MCP_TOKENS`, value {"<token>":{"account":"acme","operator":"Ada"}}, optionally with "scopes":["orders:read",...] to narrow a token',
  APPROVER_TOKENS: 'set it with `wrangler secret put APPROVER_TOKENS`, value {"<token>":{"account":"acme","approver":"Avery"}}',
};

function withHelp(issue: string): string {
  const variable = Object.keys(CONFIG_HELP).find((name) => issue.startsWith(name));
  return variable ? `${issue} (${CONFIG_HELP[variable]})` : issue;
}

/** Empty strings mean "unset": wrangler and dashboards both produce them. */
function definedVars(env: object): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === "string" && value.trim() !== "") vars[key] = value.trim();
  }
  return vars;
}

export function parseConfig(env: object): Result<Config> {
  const parsed = EnvSchema.safeParse(definedVars(env));
  if (!parsed.success) {
    const problems = describeIssues(parsed.error).map(withHelp);
    return fail("not_configured", `configuration error: ${problems.join("; ")}`, problems);
  }
  const vars = parsed.data;
  const mcpTokens = vars.MCP_TOKENS ?? new Map<string, McpTokenHolder>();
  const approverTokens = vars.APPROVER_TOKENS ?? new Map<string, Approver>();
  const problems: string[] = [];
  for (const token of mcpTokens.keys()) {
    if (approverTokens.has(token)) problems.push("a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token");
  }
  if (vars.ENVIRONMENT === "production") {
    for (const [token, who] of [...mcpTokens, ...approverTokens]) {
      if (token.length < PRODUCTION_MIN_TOKEN_LENGTH) {
        problems.push(
          `the token for account ${who.account} is ${token.length} characters; production tokens need at least ${PRODUCTION_MIN_TOKEN_LENGTH} (try \`openssl rand -hex 32\`)`,
        );
      }
    }
  }
  if (vars.CONFORMANCE_FIXTURES && vars.ENVIRONMENT === "production") {
    problems.push("CONFORMANCE_FIXTURES adds the MCP conformance suite's test tools and is for development only; remove it, or set ENVIRONMENT=development on a local server");
  }
  problems.push(...orderApiUrlProblems(vars.ENVIRONMENT, vars.ORDER_API_URL, vars.ORDER_API_TOKEN));
  problems.push(...intakeFaultProblems(vars.ENVIRONMENT, vars.INTAKE_FAULTS, vars.INTAKE_FAULTS_IN_PRODUCTION));
  problems.push(...webhookProblems(vars.ENVIRONMENT, vars));
  if (vars.ENVIRONMENT === "production") {
    problems.push(...deploymentProblems({ env, publicBaseUrl: vars.PUBLIC_BASE_URL, tokens: [...mcpTokens.keys(), ...approverTokens.keys()] }));
  }
  if (problems.length > 0) return fail("not_configured", `configuration error: ${problems.join("; ")}`, problems);
  const publicBaseUrl = vars.PUBLIC_BASE_URL ?? DEVELOPMENT_BASE_URL;
  const allowedHosts = new Set([new URL(publicBaseUrl).hostname, ...(vars.ALLOWED_HOSTS ?? [])]);
  if (vars.ENVIRONMENT === "development") for (const host of LOCAL_HOSTNAMES) allowedHosts.add(host);
  return ok({
    environment: vars.ENVIRONMENT,
    maxBatch: vars.MAX_BATCH,
    proposalTtlMinutes: vars.PROPOSAL_TTL_MINUTES,
    maxOpenProposals: vars.MAX_OPEN_PROPOSALS,
    sendConcurrency: vars.SEND_CONCURRENCY,
    runs: {
      maxRate: vars.MAX_RUN_RATE,
      maxSeconds: vars.MAX_RUN_SECONDS,
      maxOrders: vars.MAX_RUN_ORDERS,
      maxActive: vars.MAX_ACTIVE_RUNS,
      pauseSeconds: vars.RUN_PAUSE_SECONDS,
      maxInFlight: vars.MAX_IN_FLIGHT,
      maxLatenessMs: vars.RUN_MAX_LATENESS_MS,
      shardRate: vars.RUN_SHARD_RATE,
      maxShards: vars.MAX_RUN_SHARDS,
    },
    demoTools: vars.DEMO_TOOLS,
    rateLimits: vars.RATE_LIMITS,
    syntheticOrdersPerMinute: vars.SYNTH_ORDERS_PER_MINUTE,
    mcpTokens,
    approverTokens,
    allowedOrigins: vars.ALLOWED_ORIGINS ?? [],
    allowedHosts: [...allowedHosts],
    conformanceFixtures: vars.CONFORMANCE_FIXTURES,
    publicIntakeAccount: vars.PUBLIC_INTAKE_ACCOUNT,
    publicBaseUrl,
    oauth:
      new URL(publicBaseUrl).protocol === "https:" || isLoopbackUrl(publicBaseUrl)
        ? { issuer: publicBaseUrl, accessTokenTtlSeconds: vars.OAUTH_ACCESS_TOKEN_TTL_SECONDS, refreshTokenTtlSeconds: vars.OAUTH_REFRESH_TOKEN_TTL_SECONDS }
        : undefined,
    orderApiUrl: orderApiUrlConfig(vars.ORDER_API_URL, vars.ORDER_API_TOKEN),
    intakeFaults: vars.INTAKE_FAULTS,
    webhooks: webhooksConfig(vars),
  });
}

const cache = new WeakMap<object, Result<Config>>();

/** Parsed once per env object (that is, once per isolate), then reused. */
export function loadConfig(env: object): Result<Config> {
  let result = cache.get(env);
  if (!result) {
    result = parseConfig(env);
    if (!result.ok) console.error(result.error.message);
    cache.set(env, result);
  }
  return result;
}
