import type { ApplyProvider, ApplyRequest, ProviderAnswer } from "./apply-provider";

/**
 * What the simulated provider does with one call:
 * - `answer`: behaves (an apply makes the change once per key, an outcome
 *   question answers what became of the key);
 * - `refuse`: an apply is refused, and the key keeps that answer;
 * - `lose_answer`: behaves, but the answer never comes back (the caller times out);
 * - `drop`: the call never arrives: nothing happens, and no answer comes.
 */
export type StubBehaviour = "answer" | "refuse" | "lose_answer" | "drop";

export interface StubCall {
  readonly key: string;
  readonly kind: "apply" | "outcome";
  readonly behaviour: StubBehaviour;
}

const NEVER = new Promise<never>(() => undefined);

/**
 * A provider that deduplicates by idempotency key, as real ones do, inside
 * this Worker. It keeps every call it received, and how often each key's
 * change was really made, so a test can check that no retry made it twice.
 * Calls behave as scripted per key, in order; unscripted calls `answer`.
 */
export class StubProvider implements ApplyProvider {
  private readonly answers = new Map<string, ProviderAnswer>();
  private readonly made = new Map<string, number>();
  private readonly scripts = new Map<string, StubBehaviour[]>();
  private readonly received: StubCall[] = [];
  private readonly orderKeys = new Map<string, Set<string>>();

  /** The next calls for this key behave like this, one behaviour per call. */
  script(key: string, ...behaviours: StubBehaviour[]): void {
    this.scripts.set(key, [...(this.scripts.get(key) ?? []), ...behaviours]);
  }

  /** Every call that carried this key, oldest first. */
  calls(key: string): readonly StubCall[] {
    return this.received.filter((call) => call.key === key);
  }

  /** Every key an apply for this order carried: one, if every retry kept to the proposal's key. */
  keysFor(orderId: string): readonly string[] {
    return [...(this.orderKeys.get(orderId) ?? [])];
  }

  /** How many times the change behind this key was made: 0 or 1 when callers keep to one key. */
  applications(key: string): number {
    return this.made.get(key) ?? 0;
  }

  private next(key: string, kind: StubCall["kind"]): StubBehaviour {
    const behaviour = this.scripts.get(key)?.shift() ?? "answer";
    this.received.push({ key, kind, behaviour });
    return behaviour;
  }

  async apply(request: ApplyRequest): Promise<ProviderAnswer> {
    const behaviour = this.next(request.key, "apply");
    this.orderKeys.set(request.order_id, new Set([...(this.orderKeys.get(request.order_id) ?? []), request.key]));
    if (behaviour === "drop") return NEVER;
    let answer = this.answers.get(request.key);
    if (!answer) {
      if (behaviour === "refuse") {
        answer = { kind: "refused", reason: `the provider refused ${request.change.action} for ${request.order_id}` };
      } else {
        answer = { kind: "applied", reference: `stub-${this.answers.size + 1}` };
        this.made.set(request.key, (this.made.get(request.key) ?? 0) + 1);
      }
      this.answers.set(request.key, answer);
    }
    return behaviour === "lose_answer" ? NEVER : answer;
  }

  async outcome(key: string): Promise<ProviderAnswer> {
    const behaviour = this.next(key, "outcome");
    if (behaviour === "drop" || behaviour === "lose_answer") return NEVER;
    return this.answers.get(key) ?? { kind: "unknown" };
  }
}

/** The one simulated provider of this isolate: APPLY_PROVIDER=stub sends every account's changes here. */
export const STUB_PROVIDER = new StubProvider();
