import type { Context } from "hono";
import { coalesced } from "../core/coalesce";
import type { AppEnv } from "../http/app-env";

/**
 * An intake order's order_received event is written unsealed, from whichever
 * isolate took the order: the hot path takes no lock and waits for nobody.
 * Afterwards, off the response path, the isolate asks the account's object to
 * seal. Per isolate and account at most one such request is in flight and
 * one queued, so a thousand orders a second cost a few calls, and the last
 * order of a burst is still covered by a pass that starts after it was written.
 */
const requests = new Map<string, () => Promise<void>>();

function requestFor(env: Env, account: string): () => Promise<void> {
  let request = requests.get(account);
  if (!request) {
    request = coalesced(async () => {
      const sealed = await env.ACCOUNT_AGENT.getByName(account).sealAuditTrail({ account });
      if (!sealed.ok) console.error(`audit trail of ${account} not sealed after intake: ${sealed.error.message}`);
    });
    requests.set(account, request);
  }
  return request;
}

export function requestAuditSeal<E extends AppEnv>(c: Context<E>, account: string): void {
  const pending = requestFor(c.env, account)().catch((error: unknown) => {
    // The events stay unsealed until the account's next pass; nothing is lost.
    console.error(`audit seal request for ${account} failed: ${error instanceof Error ? error.message : String(error)}`);
  });
  try {
    c.executionCtx.waitUntil(pending);
  } catch {
    // No execution context (a bare app.fetch in a test): the request still runs.
  }
}
