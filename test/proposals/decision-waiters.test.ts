import { describe, expect, it } from "vitest";
import { DecisionWaiters } from "../../src/proposals/decision-waiters";

// Callers waiting for a decision are woken by it, or let go after their bound.

describe("decision waiters", () => {
  it("a decision wakes every caller waiting on that proposal, and only those", async () => {
    const waiters = new DecisionWaiters();
    let woken = 0;
    const first = waiters.wait("prop_a", 60_000).then(() => woken++);
    const second = waiters.wait("prop_a", 60_000).then(() => woken++);
    const other = waiters.wait("prop_b", 30);
    expect(waiters.size).toBe(3);
    waiters.wake("prop_a");
    await Promise.all([first, second]);
    expect(woken).toBe(2);
    expect(waiters.size).toBe(1);
    await other;
    expect(waiters.size).toBe(0);
  });

  it("without a decision, a wait ends at its bound", async () => {
    const waiters = new DecisionWaiters();
    const started = Date.now();
    await waiters.wait("prop_c", 40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(waiters.size).toBe(0);
  });
});
