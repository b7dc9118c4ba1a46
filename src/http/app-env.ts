import type { Config } from "../config/config";

/** Hono's view of this Worker: the generated Env plus what middleware resolves. */
export interface AppEnv {
  Bindings: Env;
  Variables: { config: Config };
}
