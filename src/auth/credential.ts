import { fail, type Result } from "../core/errors";
import type { Authenticated, Refusal } from "../http/respond";
import { bearerToken } from "./tokens";

/**
 * A 401 that tells the client which credential to present. Each kind of
 * credential has one check in auth/ and one challenge constant beside it, so
 * no route spells out a WWW-Authenticate value.
 */
export function challenged(challenge: string, message: string): { ok: false } & Refusal {
  return { ...fail("unauthorized", message), challenge };
}

/** How one kind of bearer credential is checked where it is accepted. */
interface BearerCredential<T> {
  /** The WWW-Authenticate challenge every refusal carries. */
  readonly challenge: string;
  /** The refusal when the header holds no `Bearer <token>`. */
  readonly missing: string;
  /** Who holds a token, or why it is refused. */
  readonly holderOf: (token: string) => Promise<Result<T>>;
  /** A refused token is marked error="invalid_token" (RFC 6750), which tells an OAuth client to get a new one. */
  readonly invalidToken?: boolean;
}

/**
 * The one Bearer check: the token from `Authorization: Bearer <token>` and its holder, or a 401 with the credential's
 * challenge.
 */
export async function authenticateBearer<T>(
  authorization: string | null | undefined,
  credential: BearerCredential<T>,
): Promise<Authenticated<T>> {
  const token = bearerToken(authorization);
  if (token === undefined) return challenged(credential.challenge, credential.missing);
  const holder = await credential.holderOf(token);
  if (holder.ok) return holder;
  return {
    ...holder,
    challenge: credential.invalidToken ? `${credential.challenge}, error="invalid_token"` : credential.challenge,
  };
}
