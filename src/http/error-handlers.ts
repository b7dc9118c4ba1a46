import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

/** The code whose status a middleware's HTTPException carries, or bad_request for a 4xx we have no name for. */
function codeForStatus(status: number): ErrorCode | undefined {
  const known = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((code) => ERROR_STATUS[code] === status);
  if (known) return known;
  return status >= 400 && status < 500 ? "bad_request" : undefined;
}

/**
 * Unknown routes and unexpected failures answer our JSON error shape, never a
 * stack or a bare text body. A Hono middleware's HTTPException keeps its
 * status; anything else is logged and answered with a generic 500.
 */
export function installErrorHandlers(app: Hono<AppEnv>): void {
  app.notFound((c) => errorResponse(c, { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` }));
  app.onError((error, c) => {
    const code = error instanceof HTTPException ? codeForStatus(error.status) : undefined;
    if (code !== undefined && code !== "internal")
      return errorResponse(c, { code, message: error.message || `request refused (${code})` });
    // Internal detail goes to the log only; the caller gets a generic message.
    console.error(`unhandled error on ${c.req.method} ${c.req.path}:`, error);
    return errorResponse(c, { code: "internal", message: "internal error; the server log has the details" });
  });
}
