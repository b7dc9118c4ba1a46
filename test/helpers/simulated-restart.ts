import { runInDurableObject } from "cloudflare:test";
import { SIMULATED_RESTART } from "../global/expected-runtime-logs";

/**
 * Throws a Durable Object's instance away mid-work, as a crash or a deploy
 * would; what it wrote to storage remains, and the next call starts a new one.
 */
export async function simulateRestart(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_instance, state) => state.abort(SIMULATED_RESTART)).catch(() => undefined);
}
