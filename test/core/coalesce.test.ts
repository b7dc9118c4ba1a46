import { describe, expect, it } from "vitest";
import { coalesced } from "../../src/core/coalesce";

/** A task whose runs finish only when the test says so. */
function gatedTask() {
  const gates: (() => void)[] = [];
  let runs = 0;
  const task = coalesced(async () => {
    const run = ++runs;
    await new Promise<void>((resolve) => gates.push(resolve));
    return run;
  });
  const release = async () => {
    gates.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { task, release, runs: () => runs };
}

describe("coalesced", () => {
  it("runs at once when idle", async () => {
    const { task, release, runs } = gatedTask();
    const first = task();
    expect(runs()).toBe(1);
    await release();
    expect(await first).toBe(1);
  });

  it("lets everyone who calls during a run share one next run, started only after it", async () => {
    const { task, release, runs } = gatedTask();
    const first = task();
    const during = Array.from({ length: 100 }, () => task());
    expect(runs()).toBe(1);
    await release();
    expect(await first).toBe(1);
    expect(runs()).toBe(2);
    await release();
    expect(new Set(await Promise.all(during))).toEqual(new Set([2]));
  });

  it("starts fresh after a failed run", async () => {
    let calls = 0;
    const task = coalesced(async () => {
      calls++;
      if (calls === 1) throw new Error("first run fails");
      return calls;
    });
    const failing = task();
    const next = task();
    await expect(failing).rejects.toThrow("first run fails");
    expect(await next).toBe(2);
    expect(await task()).toBe(3);
  });
});
