import type { MiddlewareHandler } from "hono";

/**
 * X-Content-Type-Options: nosniff on every answer, whichever code drew it
 * (our routes, the MCP SDK, the OAuth library, the error handlers), so a
 * browser never reads a JSON body that echoes input as a script or a page.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.headers.has("x-content-type-options")) return;
  try {
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    // A response whose headers are immutable (one passed on from a fetch) is copied first.
    const copy = new Response(c.res.body, c.res);
    copy.headers.set("X-Content-Type-Options", "nosniff");
    c.res = copy;
  }
};
