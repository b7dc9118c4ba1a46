import { describe, expect, it } from "vitest";
import { SerialQueue } from "../../src/account/serial-queue";

// The queues that keep one account's batches (and confirmations) from interleaving.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Records when tasks run and how many overlap. */
function overlapTracker() {
  const state = { active: 0, maxActive: 0, log: [] as string[] };
  const task =
    <T>(name: string, value: T, ms: number) =>
    async (): Promise<T> => {
      state.active++;
      state.maxActive = Math.max(state.maxActive, state.active);
      state.log.push(`start ${name}`);
      await sleep(ms);
      await Promise.resolve();
      state.log.push(`end ${name}`);
      state.active--;
      return value;
    };
  return { state, task };
}

describe("SerialQueue", () => {
  it("runs tasks one at a time, in arrival order, each returning its own value", async () => {
    const queue = new SerialQueue();
    const { state, task } = overlapTracker();
    const results = await Promise.all([
      queue.run(task("a", 1, 6)),
      queue.run(task("b", "two", 1)),
      queue.run(task("c", { three: 3 }, 3)),
    ]);
    expect(results).toEqual([1, "two", { three: 3 }]);
    expect(state.maxActive).toBe(1);
    expect(state.log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("the tracker would notice overlap (control: the same tasks without the queue)", async () => {
    const { state, task } = overlapTracker();
    await Promise.all([task("a", 1, 6)(), task("b", 2, 1)()]);
    expect(state.maxActive).toBe(2);
  });

  it("a failing task rejects its own caller and does not block the next", async () => {
    const queue = new SerialQueue();
    const { state, task } = overlapTracker();
    const failing = queue.run(async () => {
      await sleep(2);
      throw new Error("batch exploded");
    });
    const next = queue.run(task("next", "ran", 1));
    await expect(failing).rejects.toThrow("batch exploded");
    await expect(next).resolves.toBe("ran");
    expect(state.log).toEqual(["start next", "end next"]);
  });

  it("a task that throws synchronously is a rejection, and the queue keeps going", async () => {
    const queue = new SerialQueue();
    const bad = queue.run((): Promise<never> => {
      throw new TypeError("sync");
    });
    await expect(bad).rejects.toThrow("sync");
    await expect(queue.run(async () => "after")).resolves.toBe("after");
  });

  it("a task queued after a failure does not start before the failing task has settled", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const failing = queue.run(async () => {
      log.push("failing start");
      await sleep(3);
      log.push("failing end");
      throw new Error("no");
    });
    const next = queue.run(async () => {
      log.push("next start");
    });
    await Promise.allSettled([failing, next]);
    expect(log).toEqual(["failing start", "failing end", "next start"]);
  });
});
