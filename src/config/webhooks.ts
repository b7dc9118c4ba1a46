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
  /**
   * The signing secret as configured: `whsec_` and a base64 key, or (set before those) any text; see webhookSigningKey.
   */
  readonly secret: string;
}

export interface Webhooks {
  /** Approvers' channel: proposals created, decided, superseded, applied, expired. */
  readonly approvals: Webhook | undefined;
  /** Downstream systems: proposal.applied and order.updated. */
  readonly downstream: Webhook | undefined;
}

/** Production secrets without the whsec_ prefix are at least this long, like production tokens. */
const PRODUCTION_MIN_SECRET_LENGTH = 32;

/**
 * How a Standard Webhooks secret is written (https://www.standardwebhooks.com/): this prefix, then the key in base64.
 */
export const STANDARD_SECRET_PREFIX = "whsec_";

/** The spec's bounds on a symmetric key: at least 24 bytes (192 bits), at most 64 (512 bits). */
const STANDARD_KEY_BYTES = { min: 24, max: 64 } as const;

/** The command every message suggests: 32 random bytes, written the way the spec writes secrets. */
const SECRET_HINT = "`echo whsec_$(openssl rand -base64 32)`";

/**
 * Canonical base64 (standard alphabet, padded): the one spelling every
 * Standard Webhooks library decodes to the same bytes. Python's decoder skips
 * characters it does not know, so a URL-safe key would sign with other bytes there.
 */
const CANONICAL_BASE64 = /^(?=.)(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The key of a whsec_ secret; undefined when what follows the prefix is not canonical base64. */
function standardKey(secret: string): Uint8Array | undefined {
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!CANONICAL_BASE64.test(encoded)) return undefined;
  return Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
}

/**
 * The HMAC-SHA256 key a secret signs Standard Webhooks deliveries with. A
 * `whsec_` secret is decoded as the spec says; a secret without the prefix
 * (set before this Worker spoke Standard Webhooks) is used as written, its
 * bytes, which the standardwebhooks libraries call the raw format. So a
 * receiver's existing secret keeps working, and nothing is guessed: hex from
 * `openssl rand -hex 32` is valid base64 too, and would give another key if
 * it were decoded.
 */
export function webhookSigningKey(secret: string): Uint8Array {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return new TextEncoder().encode(secret);
  const key = standardKey(secret);
  // The config refused such a secret at startup; reaching this is a caller that skipped it.
  if (key === undefined) throw new Error("webhookSigningKey: a whsec_ secret that the config did not accept");
  return key;
}

/**
 * ASCII only: the JavaScript library's raw format reads one byte per character, so other text would sign with other
 * bytes there.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

const WebhookSecretSchema = z.string().superRefine((secret, ctx) => {
  const problem = (message: string) => ctx.addIssue({ code: "custom", message });
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) {
    if (!PRINTABLE_ASCII.test(secret))
      problem(`must be printable ASCII; use a Standard Webhooks secret, e.g. the output of ${SECRET_HINT}`);
    return;
  }
  const key = standardKey(secret);
  if (key === undefined) {
    problem(
      `must be whsec_ followed by the key in base64 (A-Z, a-z, 0-9, + and /, padded with =), e.g. the output of ${SECRET_HINT}`,
    );
  } else if (key.length < STANDARD_KEY_BYTES.min || key.length > STANDARD_KEY_BYTES.max) {
    problem(
      `holds a ${key.length}-byte key; Standard Webhooks keys are ${STANDARD_KEY_BYTES.min} to ${STANDARD_KEY_BYTES.max} bytes (${SECRET_HINT} gives 32)`,
    );
  }
});

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
  NOTIFY_WEBHOOK_SECRET: WebhookSecretSchema.optional(),
  DOWNSTREAM_WEBHOOK_URL: WebhookUrlSchema.optional(),
  DOWNSTREAM_WEBHOOK_SECRET: WebhookSecretSchema.optional(),
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
      `${names.secret} is required when ${names.url} is set: every delivery is signed with it (set it with \`wrangler secret put ${names.secret}\` to a Standard Webhooks secret, e.g. the output of ${SECRET_HINT})`,
    );
  } else if (
    environment === "production" &&
    !secret.startsWith(STANDARD_SECRET_PREFIX) &&
    secret.length < PRODUCTION_MIN_SECRET_LENGTH
  ) {
    problems.push(
      `${names.secret} is too short: production needs at least ${PRODUCTION_MIN_SECRET_LENGTH}, or a Standard Webhooks secret (try ${SECRET_HINT})`,
    );
  }
  const { protocol, hostname } = new URL(url);
  if (environment === "production") {
    if (protocol !== "https:") problems.push(`${names.url} must use https in production`);
    else if (isLoopbackHost(hostname))
      problems.push(
        `${names.url} points at this machine (localhost or a loopback address), which a deployed Worker cannot reach; use the receiver's public https URL`,
      );
  } else if (protocol !== "https:" && !isLoopbackHost(hostname)) {
    problems.push(
      `${names.url} may use plain http only on this machine (localhost, 127.0.0.1, [::1]); use https for any other host`,
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
