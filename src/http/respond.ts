import type { Context } from "hono";
import { errorBody, statusOf, type AppError } from "../core/errors";

/** The one place an AppError becomes an HTTP response. */
export function errorResponse(c: Context, error: AppError, headers?: Record<string, string>): Response {
  return c.json(errorBody(error), statusOf(error), headers);
}

/** For routes that exist but not with this method: 405 with the Allow header. */
export function methodNotAllowed(allowed: readonly string[]) {
  return (c: Context): Response =>
    errorResponse(
      c,
      { code: "method_not_allowed", message: `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(" or ")}` },
      { Allow: allowed.join(", ") },
    );
}
