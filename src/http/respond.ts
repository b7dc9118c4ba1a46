import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppError, errorBody, statusOf } from "../core/errors";

/** Waiting this long always clears a limit: 60 s is the longest window the rate-limiting binding has. */
export const RETRY_AFTER_SECONDS = 60;

/**
 * The headers an error carries whatever shape its body takes (JSON, JSON-RPC, a page): a rate limit says when to come
 * back.
 */
export function errorHeaders(error: AppError): Record<string, string> {
  return error.code === "rate_limited" ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {};
}

const utf8 = new TextEncoder();

/**
 * JSON with its Content-Length declared. A service binding passes a body on
 * without a length unless the answer names one, and a caller that bounds
 * what it reads (the account's object reading the intake's answers) can then
 * read a declared body in one step instead of chunk by chunk.
 */
export function sizedJson(
  c: Context,
  value: unknown,
  status: ContentfulStatusCode,
  headers?: Record<string, string>,
): Response {
  // encode() always returns a fresh ArrayBuffer; the DOM types only say ArrayBufferLike.
  const bytes = utf8.encode(JSON.stringify(value)) as Uint8Array<ArrayBuffer>;
  return c.body(bytes, status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(bytes.byteLength),
  });
}

/** The one place an AppError becomes an HTTP response. */
export function errorResponse(c: Context, error: AppError, headers?: Record<string, string>): Response {
  return sizedJson(c, errorBody(error), statusOf(error), { ...errorHeaders(error), ...headers });
}

/** A refused credential: the error, and the WWW-Authenticate challenge its kind answers with. */
export interface Refusal {
  readonly error: AppError;
  readonly challenge?: string | undefined;
}

/** What a credential check answers: who is calling, or a refusal with its challenge. */
export type Authenticated<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & Refusal);

export function refusalResponse(c: Context, refusal: Refusal): Response {
  return errorResponse(
    c,
    refusal.error,
    refusal.challenge === undefined ? undefined : { "WWW-Authenticate": refusal.challenge },
  );
}

/** For routes that exist but not with this method: 405 with the Allow header. */
export function methodNotAllowed(allowed: readonly string[]) {
  return (c: Context): Response =>
    errorResponse(
      c,
      {
        code: "method_not_allowed",
        message: `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(" or ")}`,
      },
      { Allow: allowed.join(", ") },
    );
}
