import { describe, expect, it } from "vitest";
import { KeyedSerialQueue, SerialQueue } from "../../src/account/serial-queue";

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

describe("KeyedSerialQueue", () => {
  it("serializes tasks with the same key", async () => {
    const queue = new KeyedSerialQueue();
    const { state, task } = overlapTracker();
    await Promise.all([queue.run("acme", task("a1", 1, 4)), queue.run("acme", task("a2", 2, 1)), queue.run("acme", task("a3", 3, 2))]);
    expect(state.maxActive).toBe(1);
    expect(state.log).toEqual(["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]);
  });

  it("runs different keys concurrently", async () => {
    const queue = new KeyedSerialQueue();
    const { state, task } = overlapTracker();
    const results = await Promise.all([queue.run("acme", task("acme", "A", 5)), queue.run("globex", task("globex", "G", 5))]);
    expect(results).toEqual(["A", "G"]);
    expect(state.maxActive).toBe(2);
  });

  it("a failing task does not block the next task with the same key", async () => {
    const queue = new KeyedSerialQueue();
    const failing = queue.run("acme", async () => {
      await sleep(1);
      throw new Error("first failed");
    });
    const next = queue.run("acme", async () => "second ran");
    await expect(failing).rejects.toThrow("first failed");
    await expect(next).resolves.toBe("second ran");
  });

  it("keeps serializing a key after it went idle and its queue was dropped", async () => {
    const queue = new KeyedSerialQueue();
    const { state, task } = overlapTracker();
    const first = queue.run("acme", task("first", 1, 3));
    await first;
    const second = queue.run("acme", task("second", 2, 3));
    const third = queue.run("acme", task("third", 3, 1));
    await Promise.all([second, third]);
    expect(state.maxActive).toBe(1);
    expect(state.log.slice(2)).toEqual(["start second", "end second", "start third", "end third"]);
  });
});
