import type { Context } from "hono";

/**
 * The request's waitUntil, for work that must finish after the response has
 * gone. A bare `app.fetch` (as some tests call the app) has no execution
 * context; the work then simply runs while the caller is still around.
 */
export function waitUntilOf(c: Context): (work: Promise<unknown>) => void {
  return (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // No execution context: nothing to extend.
    }
  };
}
