/**
 * Each variable the Worker reads, as it is written in wrangler.toml, .dev.vars
 * or a secret, with its default and a readable message per bad value. Rules
 * that span variables, and the Config the code reads, are in config.ts.
 */
import { z } from "zod/v4";
import { AccountIdSchema } from "../core/account-id";
import { MAX_CONFIGURABLE_SUBREQUESTS, PAID_SUBREQUESTS_PER_INVOCATION } from "../core/platform-limits";
import { ApplyProviderVars } from "./apply-provider-vars";
import { isKvBinding } from "./deployment-checks";
import { FourEyesVars } from "./four-eyes";
import { IntakeFaultsSchema } from "./intake-faults";
import { isOn, SWITCH_WORDS } from "./on-off";
import { OrderApiTokenSchema, OrderApiUrlSchema } from "./order-api-url";
import { ApproverTokenEntry, jsonTokenMap, McpTokenEntry } from "./token-maps";
import { WEBHOOK_VARS } from "./webhooks";
import { boundedInt } from "./whole-number";

/** The largest MAX_BATCH a deployment may configure. */
const MAX_BATCH_CEILING = 10_000;

const onOff = z.enum(SWITCH_WORDS, { message: 'use "on" or "off"' }).transform(isOn);

export const EnvVarsSchema = z.object({
  ...FourEyesVars,
  /** The external provider an approved change goes to (config/apply-provider-vars.ts). */
  ...ApplyProviderVars,
  ENVIRONMENT: z.enum(["development", "production"]).default("production"),
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
  RUN_EXPECTED_SERVICE_MS: boundedInt(1, 60_000).default(100),
  PLATFORM_LIMITS: onOff.default(true),
  SUBREQUEST_LIMIT: boundedInt(1, MAX_CONFIGURABLE_SUBREQUESTS).default(PAID_SUBREQUESTS_PER_INVOCATION),
  SYNTH_ORDERS_PER_MINUTE: boundedInt(1, 1_000_000).default(6000),
  DEMO_TOOLS: onOff.default(false),
  DEMO_DATA: onOff.default(false),
  RATE_LIMITS: onOff.default(true),
  MCP_TOKENS: jsonTokenMap(McpTokenEntry, (holder) => holder.operator).optional(),
  APPROVER_TOKENS: jsonTokenMap(ApproverTokenEntry, (holder) => holder.approver).optional(),
  ALLOWED_ORIGINS: z
    .string()
    .transform((raw) =>
      raw
        .split(",")
        .map((o) => o.trim())
        .filter((o) => o !== ""),
    )
    .pipe(z.array(z.url({ message: "each origin must look like https://app.example.com" })))
    .optional(),
  ALLOWED_HOSTS: z
    .string()
    .transform((raw) =>
      raw
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== ""),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/,
            "each host must be a bare hostname like mcp.example.com, without scheme, port or path",
          ),
      ),
    )
    .optional(),
  CONFORMANCE_FIXTURES: onOff.default(false),
  PUBLIC_INTAKE_ACCOUNT: AccountIdSchema.optional(),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, message: "must be the Worker's public URL, like https://order-ops.example.com" })
    .transform((url, ctx) => {
      const parsed = new URL(url);
      if (parsed.pathname !== "/" || parsed.search !== "") {
        ctx.addIssue({
          code: "custom",
          message: "must be an origin without a path, like https://order-ops.example.com",
        });
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
  /** Where the outbox delivers, and what it signs with (config/webhooks.ts). */
  ...WEBHOOK_VARS,
  OUTBOX_REDRIVE_SECONDS: boundedInt(10, 24 * 60 * 60).default(300),
  /** The binding, not a variable: whether it is there is all the checks need. */
  OAUTH_KV: z.unknown().transform(isKvBinding),
});

export type EnvVars = z.output<typeof EnvVarsSchema>;

/**
 * What the schema reads from the Worker's env: its text variables, trimmed,
 * where empty means unset (wrangler and dashboards both produce empty ones),
 * and the one binding the deployment checks look for.
 */
export function envVarsInput(env: object): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(env)) {
    if (typeof value === "string" && value.trim() !== "") vars[key] = value.trim();
  }
  vars.OAUTH_KV = (env as Record<string, unknown>).OAUTH_KV;
  return vars;
}
