import type { ApplyProviderConfig } from "../config/apply-provider-vars";
import type { OrderChange } from "../orders/change-kinds";

/**
 * The external system an approved change is sent to (a payment processor, a
 * carrier, an ERP). Every call carries the proposal's idempotency key, the
 * same on the first call, on every retry and on every question about its
 * outcome, so a provider that deduplicates by key applies a change at most
 * once however often it is asked.
 */
export interface ApplyRequest {
  readonly key: string;
  readonly account: string;
  readonly order_id: string;
  readonly change: OrderChange;
}

/** What a provider said about a key. */
export type ProviderAnswer =
  | { readonly kind: "applied"; readonly reference: string }
  | { readonly kind: "refused"; readonly reason: string }
  /** Only from `outcome`: the provider has never seen this key, so the change was never made. */
  | { readonly kind: "unknown" };

export interface ApplyProvider {
  /** Asks the provider to make the change; a key it has seen answers its first answer again. */
  apply(request: ApplyRequest): Promise<ProviderAnswer>;
  /** Asks what became of a key, without making any change. */
  outcome(key: string): Promise<ProviderAnswer>;
}

/**
 * What a call came to, seen from here: the provider's answer, or none in time (the change may or may not have been
 * made).
 */
export type CallResult = ProviderAnswer | { readonly kind: "no_answer"; readonly problem: string };

/**
 * The provider as the proposal service calls it: every call bounded by the configured timeout, and a thrown call is an
 * unanswered one.
 */
export interface BoundedProvider {
  apply(request: ApplyRequest): Promise<CallResult>;
  outcome(key: string): Promise<CallResult>;
}

async function bounded(call: () => Promise<ProviderAnswer>, timeoutMs: number): Promise<CallResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<CallResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: "no_answer", problem: `the provider did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      call().catch(
        (error: unknown): CallResult => ({
          kind: "no_answer",
          problem: `the call to the provider failed (${error instanceof Error ? error.message : String(error)})`,
        }),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function boundedProvider(provider: ApplyProvider, timeoutMs: number): BoundedProvider {
  return {
    apply: (request) => bounded(() => provider.apply(request), timeoutMs),
    outcome: (key) => bounded(() => provider.outcome(key), timeoutMs),
  };
}

/** The provider settings the proposal service works with; null: no provider, apply locally as before. */
export type ProviderSetup = { readonly provider: BoundedProvider; readonly config: ApplyProviderConfig } | null;
