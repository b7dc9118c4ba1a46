import { type Context, Hono, type Env as HonoEnv } from "hono";
import type { AppEnv } from "./app-env";
import { installErrorHandlers } from "./error-handlers";

/**
 * Mounts routes at `path` whose modules are evaluated on the first request
 * under that path, not when the isolate starts. Every module-level zod
 * schema, the MCP SDK and the page templates cost CPU at startup, and each
 * cold start pays for all of them although a request needs one surface.
 * Wrangler bundles a dynamic import() into the same script, so nothing is
 * fetched: the module's top level just runs later.
 */
export function mountLazily<SubEnv extends HonoEnv>(
  app: Hono<AppEnv>,
  path: string,
  load: () => Promise<Hono<SubEnv>>,
): void {
  let mounted: Promise<Hono<AppEnv>> | undefined;
  const mount = (): Promise<Hono<AppEnv>> =>
    (mounted ??= load().then(
      (routes) => {
        const surface = new Hono<AppEnv>();
        surface.route(path, routes);
        installErrorHandlers(surface);
        return surface;
      },
      (error: unknown) => {
        mounted = undefined; // let the next request retry instead of caching the failure
        throw error;
      },
    ));
  const serve = async (c: Context<AppEnv>) => (await mount()).fetch(c.req.raw, c.env, c.executionCtx);
  app.all(path, serve);
  app.all(`${path}/*`, serve);
}
