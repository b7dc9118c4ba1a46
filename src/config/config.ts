/**
 * Configuration is parsed once per isolate from the Worker's vars and secrets,
 * by one schema: each variable's own rules are in env-vars.ts, and the rules
 * that span variables and the shape the code reads (`Config`, the schema's
 * output) are here. A bad value turns into one readable message that names the
 * variable and what to set, instead of a surprise deep inside a request.
 */
import { z } from "zod/v4";
import { fail, ok, type Result } from "../core/errors";
import { CONNECTIONS_PER_INVOCATION } from "../core/platform-limits";
import { describeIssues } from "../core/zod-issues";
import { applyProviderConfig, applyProviderProblems } from "./apply-provider-vars";
import { deploymentProblems, isLoopbackUrl } from "./deployment-checks";
import { type EnvVars, EnvVarsSchema, envVarsInput } from "./env-vars";
import { fourEyesRule } from "./four-eyes";
import { intakeFaultProblems } from "./intake-faults";
import { orderApiUrlConfig, orderApiUrlProblems } from "./order-api-url";
import { type Approver, linkApprovers, type McpTokenHolder } from "./token-maps";
import { webhookProblems, webhooksConfig } from "./webhooks";

export type { Approver, McpTokenHolder } from "./token-maps";

/** Whoever an operator's call is made for: the account, the operator's name and their identity. */
export interface Operator {
  readonly account: string;
  readonly operator: string;
  readonly id: string;
}

const PRODUCTION_MIN_TOKEN_LENGTH = 32;

/** `wrangler dev`'s default address; `npm run dev` passes the real one when the port differs. */
const DEVELOPMENT_BASE_URL = "http://localhost:8787";

/** Hostnames a local client reaches `wrangler dev` by. */
const LOCAL_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"] as const;

/** What is wrong across variables, each one sentence; only asked once every variable parsed by itself. */
function crossFieldProblems(
  vars: EnvVars,
  mcpTokens: ReadonlyMap<string, McpTokenHolder>,
  approverTokens: ReadonlyMap<string, Approver>,
): string[] {
  const problems: string[] = [];
  for (const token of mcpTokens.keys()) {
    if (approverTokens.has(token))
      problems.push(
        "a token appears in both MCP_TOKENS and APPROVER_TOKENS; an approver credential must differ from every MCP token",
      );
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
    problems.push(
      "CONFORMANCE_FIXTURES adds the MCP conformance suite's test tools and is for development only; remove it, or set ENVIRONMENT=development on a local server",
    );
  }
  problems.push(...orderApiUrlProblems(vars.ENVIRONMENT, vars.ORDER_API_URL, vars.ORDER_API_TOKEN));
  problems.push(...intakeFaultProblems(vars.ENVIRONMENT, vars.INTAKE_FAULTS, vars.INTAKE_FAULTS_IN_PRODUCTION));
  problems.push(...webhookProblems(vars.ENVIRONMENT, vars));
  problems.push(...applyProviderProblems(vars.ENVIRONMENT, vars.APPLY_PROVIDER));
  if (vars.ENVIRONMENT === "production") {
    problems.push(
      ...deploymentProblems({
        hasOauthKv: vars.OAUTH_KV,
        publicBaseUrl: vars.PUBLIC_BASE_URL,
        tokens: [...mcpTokens.keys(), ...approverTokens.keys()],
      }),
    );
  }
  return problems;
}

/** The variables, checked across each other, turned into the configuration the code reads. */
const ConfigSchema = EnvVarsSchema.transform((vars, ctx) => {
  const mcpTokens: ReadonlyMap<string, McpTokenHolder> = vars.MCP_TOKENS ?? new Map();
  const approverTokens = linkApprovers(vars.APPROVER_TOKENS ?? new Map(), mcpTokens);
  const problems = crossFieldProblems(vars, mcpTokens, approverTokens);
  if (problems.length > 0) {
    for (const message of problems) ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  }
  const publicBaseUrl = vars.PUBLIC_BASE_URL ?? DEVELOPMENT_BASE_URL;
  const allowedHosts = new Set([new URL(publicBaseUrl).hostname, ...(vars.ALLOWED_HOSTS ?? [])]);
  if (vars.ENVIRONMENT === "development") for (const host of LOCAL_HOSTNAMES) allowedHosts.add(host);
  const allowedOrigins: readonly string[] = vars.ALLOWED_ORIGINS ?? [];
  const servedHosts: readonly string[] = [...allowedHosts];
  return {
    environment: vars.ENVIRONMENT,
    maxBatch: vars.MAX_BATCH,
    proposalTtlMinutes: vars.PROPOSAL_TTL_MINUTES,
    /** Open (pending or approved) proposals one account may hold at once. */
    maxOpenProposals: vars.MAX_OPEN_PROPOSALS,
    sendConcurrency: vars.SEND_CONCURRENCY,
    /**
     * Traffic runs: the caps on start_traffic_run (orders per second, seconds,
     * orders per run, runs at once per account), how long a run waits for an
     * unreachable target, and how its generator works: requests in flight per
     * shard, the lateness after which an order is dropped, and the rate one
     * shard is given before a run fans out over more (at most maxShards).
     */
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
      /** The service time a run's fan-out is sized to hold: rate x this many ms in flight. */
      expectedServiceMs: vars.RUN_EXPECTED_SERVICE_MS,
      /** Requests one shard may have waiting for headers: the platform's limit, or none when it is off. */
      connectionsPerShard: vars.PLATFORM_LIMITS ? CONNECTIONS_PER_INVOCATION : null,
    },
    /**
     * The platform's limits per invocation (core/platform-limits.ts), enforced locally as deployed; null
     * (PLATFORM_LIMITS=off) lets a local run measure the machine instead.
     */
    platformLimits: vars.PLATFORM_LIMITS
      ? { connections: CONNECTIONS_PER_INVOCATION, subrequests: vars.SUBREQUEST_LIMIT }
      : null,
    demoTools: vars.DEMO_TOOLS,
    /**
     * Whether the account databases hold the demo operations dataset (seed/operations.json); read by the database's
     * door.
     */
    demoData: vars.DEMO_DATA,
    /** Per-credential request limits (the [[ratelimits]] bindings), and the synthetic order budget below. */
    rateLimits: vars.RATE_LIMITS,
    /** Synthetic orders (batches and runs together) one account may send per minute, while rateLimits is on. */
    syntheticOrdersPerMinute: vars.SYNTH_ORDERS_PER_MINUTE,
    /** Empty when MCP_TOKENS is unset: /mcp then fails closed. */
    mcpTokens,
    approverTokens,
    allowedOrigins,
    /**
     * Hostnames /mcp answers to (DNS-rebinding protection): the host of
     * PUBLIC_BASE_URL, ALLOWED_HOSTS (custom domains), and localhost in development.
     */
    allowedHosts: servedHosts,
    /** Registers the MCP conformance suite's fixture tools, resources and prompts; development only. */
    conformanceFixtures: vars.CONFORMANCE_FIXTURES,
    /** When a proposal needs two distinct approvers (FOUR_EYES_OVER_CENTS, FOUR_EYES_RISK); null rules are off. */
    fourEyes: fourEyesRule(vars),
    /** The account unauthenticated /api callers act as; unset means /api needs a token. */
    publicIntakeAccount: vars.PUBLIC_INTAKE_ACCOUNT,
    /**
     * Where people reach this Worker, without a trailing slash. Links handed to
     * models and people (approval pages) are built from it, never from the
     * request's Host header, which a caller controls.
     */
    publicBaseUrl,
    /**
     * The OAuth authorization server: its issuer is publicBaseUrl, which OAuth
     * requires to be https (or this machine). Undefined only in development
     * with a plain-http LAN address, where static tokens still work.
     */
    oauth:
      new URL(publicBaseUrl).protocol === "https:" || isLoopbackUrl(publicBaseUrl)
        ? {
            issuer: publicBaseUrl,
            accessTokenTtlSeconds: vars.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
            refreshTokenTtlSeconds: vars.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
          }
        : undefined,
    /** Where synthetic traffic goes instead of the ORDER_API binding; undefined means the binding. */
    orderApiUrl: orderApiUrlConfig(vars.ORDER_API_URL, vars.ORDER_API_TOKEN),
    /** Latency, failures and stalls the built-in intake API adds to order intake; undefined means none. */
    intakeFaults: vars.INTAKE_FAULTS,
    /** Where the outbox delivers proposal and order events; a destination left undefined gets none. */
    webhooks: webhooksConfig(vars),
    /**
     * How long past an event's expected delivery the cron drain waits before it
     * takes the queue's message as lost (a crash, a local queue's restart) and
     * hands the event over again.
     */
    outboxRedriveSeconds: vars.OUTBOX_REDRIVE_SECONDS,
    /** Where an approved change is sent before it is applied here, and how an unanswered call is settled. */
    applyProvider: applyProviderConfig(vars),
  } as const;
});

export type Config = z.output<typeof ConfigSchema>;

const CONFIG_HELP: Record<string, string> = {
  MCP_TOKENS:
    'set it with `wrangler secret put MCP_TOKENS`, value {"<token>":{"account":"acme","operator":"Ada"}}, optionally with "scopes":["orders:read",...] to narrow a token',
  APPROVER_TOKENS:
    'set it with `wrangler secret put APPROVER_TOKENS`, value {"<token>":{"account":"acme","approver":"Avery"}}',
};

function withHelp(issue: string): string {
  const variable = Object.keys(CONFIG_HELP).find((name) => issue.startsWith(name));
  return variable ? `${issue} (${CONFIG_HELP[variable]})` : issue;
}

export function parseConfig(env: object): Result<Config> {
  const parsed = ConfigSchema.safeParse(envVarsInput(env));
  if (parsed.success) return ok(parsed.data);
  // A variable's own problem names it by its path; a rule across variables names them in its sentence.
  const problems = describeIssues(parsed.error, "").map(withHelp);
  return fail("not_configured", `configuration error: ${problems.join("; ")}`, problems);
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
