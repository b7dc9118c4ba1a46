/**
 * An intake order's order_received event is written unsealed, from whichever
 * isolate took the order: the hot path takes no lock and waits for nobody.
 * Afterwards the isolate asks the account's object to seal, and the object
 * answers at once and seals in the background.
 *
 * Per isolate and account one such request is in flight at a time. Orders
 * written meanwhile only mark that another request is due, which goes out
 * when the current one returns, at most five times a second: a thousand
 * orders a second cost a few calls, and the last order of a burst is still
 * asked for after it was written, so a pass that starts later covers it.
 * Only the order that sends the first request keeps its isolate working
 * until the asking is done.
 */
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";

interface Asking {
  inFlight: Promise<void> | undefined;
  askAgain: boolean;
}

const asking = new Map<string, Asking>();

/** The account's object starts a pass at most this often anyway; asking more often only costs calls. */
const ASK_INTERVAL_MS = 200;

async function askUntilCaughtUp(env: Env, account: string, state: Asking): Promise<void> {
  try {
    const agent = env.ACCOUNT_AGENT.getByName(account);
    for (;;) {
      state.askAgain = false;
      const asked = await agent.requestAuditSeal({ account });
      // The events stay unsealed until the account's next pass; nothing is lost.
      if (!asked.ok) console.error(`audit trail of ${account} not sealed after intake: ${asked.error.message}`);
      await new Promise((resolve) => setTimeout(resolve, ASK_INTERVAL_MS));
      if (!state.askAgain) break;
    }
  } catch (error) {
    console.error(
      `audit seal request for ${account} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    // In the same turn as the last check of askAgain: no order can slip between them.
    state.inFlight = undefined;
  }
}

export function requestAuditSeal<E extends AppEnv>(c: Context<E>, account: string): void {
  let state = asking.get(account);
  if (!state) {
    state = { inFlight: undefined, askAgain: false };
    asking.set(account, state);
  }
  if (state.inFlight) {
    state.askAgain = true;
    return;
  }
  const current = state;
  // Started on the next microtask, so inFlight is set before the loop can clear it.
  current.inFlight = Promise.resolve().then(() => askUntilCaughtUp(c.env, account, current));
  try {
    c.executionCtx.waitUntil(current.inFlight);
  } catch {
    // No execution context (a bare app.fetch in a test): the asking still runs.
  }
}
