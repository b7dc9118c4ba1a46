import { env } from "cloudflare:workers";
import { type Config, parseConfig } from "../../src/config/config";
import type { AppError } from "../../src/core/errors";

/**
 * Production refuses to start without a public base URL and the OAuth KV binding, so every production case has both.
 */
export const BASE = { PUBLIC_BASE_URL: "https://ops.example.com", OAUTH_KV: env.OAUTH_KV };

/** The Config these vars parse to (over BASE); throws if they do not parse. */
export function parsed(vars: Record<string, unknown>): Config {
  const result = parseConfig({ ...BASE, ...vars });
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error.message}`);
  return result.value;
}

/** The configuration error these vars give (over BASE); throws if they parse. */
export function failure(vars: Record<string, unknown>): AppError {
  const result = parseConfig({ ...BASE, ...vars });
  if (result.ok) throw new Error("expected a configuration error");
  return result.error;
}
