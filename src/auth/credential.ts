import { fail } from "../core/errors";
import type { Refusal } from "../http/respond";

/**
 * A 401 that tells the client which credential to present. Each kind of
 * credential has one check in auth/ and one challenge constant beside it, so
 * no route spells out a WWW-Authenticate value.
 */
export function challenged(challenge: string, message: string): { ok: false } & Refusal {
  return { ...fail("unauthorized", message), challenge };
}
