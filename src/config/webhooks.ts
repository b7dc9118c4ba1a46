import { z } from "zod/v4";
import { isLoopbackHost } from "./deployment-checks";

/**
 * Where the outbox delivers its events: one webhook per destination, each a
 * URL fixed by the operator (a var) with its signing secret (a secret). A
 * destination without a URL gets no events at all, so nothing piles up for a
 * receiver that does not exist.
 */
export interface Webhook {
  readonly url: string;
  /** The HMAC-SHA256 key every delivery is signed with. */
  readonly secret: string;
}

export interface Webhooks {
  /** Approvers' channel: proposals created, decided, superseded, applied, expired. */
  readonly approvals: Webhook | undefined;
  /** Downstream systems: proposal.applied and order.updated. */
  readonly downstream: Webhook | undefined;
}

/** Production secrets are at least this long, like production tokens. */
const PRODUCTION_MIN_SECRET_LENGTH = 32;

/** Each destination's var names, in the order the problems are reported. */
const VARS = {
  approvals: { url: "NOTIFY_WEBHOOK_URL", secret: "NOTIFY_WEBHOOK_SECRET" },
  downstream: { url: "DOWNSTREAM_WEBHOOK_URL", secret: "DOWNSTREAM_WEBHOOK_SECRET" },
} as const satisfies Record<keyof Webhooks, { url: string; secret: string }>;

const WebhookUrlSchema = z.string().transform((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be the receiver's URL, like https://hooks.example.com/order-ops" });
    return z.NEVER;
  }
  const problems = [
    url.protocol === "https:" || url.protocol === "http:" ? undefined : "must start with https://",
    url.username === "" && url.password === ""
      ? undefined
      : "must not hold a user name or password; deliveries are signed with the secret instead",
    url.hash === "" ? undefined : "must not have a fragment",
  ].filter((problem) => problem !== undefined);
  for (const message of problems) ctx.addIssue({ code: "custom", message });
  return problems.length > 0 ? z.NEVER : url.href;
});

/** The vars this module reads, for the config's one zod schema. */
export const WEBHOOK_VARS = {
  NOTIFY_WEBHOOK_URL: WebhookUrlSchema.optional(),
  NOTIFY_WEBHOOK_SECRET: z.string().optional(),
  DOWNSTREAM_WEBHOOK_URL: WebhookUrlSchema.optional(),
  DOWNSTREAM_WEBHOOK_SECRET: z.string().optional(),
};

type WebhookVars = { readonly [K in keyof typeof WEBHOOK_VARS]?: string | undefined };

function destinationProblems(
  environment: "development" | "production",
  names: { url: string; secret: string },
  url: string | undefined,
  secret: string | undefined,
): string[] {
  if (url === undefined) {
    return secret === undefined
      ? []
      : [`${names.secret} is set but ${names.url} is not; set ${names.url} to the receiver's URL or remove the secret`];
  }
  const problems: string[] = [];
  if (secret === undefined) {
    problems.push(
      `${names.secret} is required when ${names.url} is set: every delivery is signed with it (set it with \`wrangler secret put ${names.secret}\`, e.g. the output of \`openssl rand -hex 32\`)`,
    );
  } else if (environment === "production" && secret.length < PRODUCTION_MIN_SECRET_LENGTH) {
    problems.push(
      `${names.secret} is ${secret.length} characters; production needs at least ${PRODUCTION_MIN_SECRET_LENGTH} (try \`openssl rand -hex 32\`)`,
    );
  }
  const { protocol, hostname } = new URL(url);
  if (environment === "production") {
    if (protocol !== "https:") problems.push(`${names.url} must use https in production, not ${url}`);
    else if (isLoopbackHost(hostname))
      problems.push(
        `${names.url} points at this machine (${hostname}), which a deployed Worker cannot reach; use the receiver's public https URL`,
      );
  } else if (protocol !== "https:" && !isLoopbackHost(hostname)) {
    problems.push(
      `${names.url} may use plain http only on this machine (localhost, 127.0.0.1, [::1]); use https for ${url}`,
    );
  }
  return problems;
}

/** Why these webhook settings cannot start the Worker; empty when they can. */
export function webhookProblems(environment: "development" | "production", vars: WebhookVars): string[] {
  return (Object.keys(VARS) as (keyof Webhooks)[]).flatMap((destination) => {
    const names = VARS[destination];
    return destinationProblems(environment, names, vars[names.url], vars[names.secret]);
  });
}

/** The webhooks of vars that webhookProblems accepted. */
export function webhooksConfig(vars: WebhookVars): Webhooks {
  const webhook = (names: (typeof VARS)[keyof Webhooks]): Webhook | undefined => {
    const url = vars[names.url];
    const secret = vars[names.secret];
    return url === undefined || secret === undefined ? undefined : { url, secret };
  };
  return { approvals: webhook(VARS.approvals), downstream: webhook(VARS.downstream) };
}

/** The var that configures a destination's URL, for messages that tell an operator what to set. */
export function webhookUrlVar(destination: keyof Webhooks): string {
  return VARS[destination].url;
}
