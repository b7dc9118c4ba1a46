import type { Hono } from "hono";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./respond";

/** Unknown routes and unexpected failures answer our JSON error shape, never a stack or a bare text body. */
export function installErrorHandlers(app: Hono<AppEnv>): void {
  app.notFound((c) => errorResponse(c, { code: "not_found", message: `no route for ${c.req.method} ${c.req.path}` }));
  app.onError((error, c) => {
    // Internal detail goes to the log only; the caller gets a generic message.
    console.error(`unhandled error on ${c.req.method} ${c.req.path}:`, error);
    return errorResponse(c, { code: "internal", message: "internal error; the server log has the details" });
  });
}
