/**
 * Callers waiting for a person to decide a proposal, inside the account's
 * object: a decision wakes them at once, so an agent that waits is told the
 * moment the approver clicks, without polling. Each wait is bounded; a wake
 * only means "look again", the stored proposal is always the answer.
 */
export class DecisionWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves when `proposalId` is decided (woken) or after `ms`, whichever comes first. */
  wait(proposalId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiting.get(proposalId)?.delete(wake);
        if (this.waiting.get(proposalId)?.size === 0) this.waiting.delete(proposalId);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      const set = this.waiting.get(proposalId) ?? new Set();
      set.add(wake);
      this.waiting.set(proposalId, set);
    });
  }

  wake(proposalId: string): void {
    for (const wake of [...(this.waiting.get(proposalId) ?? [])]) wake();
  }

  /** How many callers wait for this proposal now. */
  count(proposalId: string): number {
    return this.waiting.get(proposalId)?.size ?? 0;
  }

  get size(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }
}
