import { describe, expect, it } from "vitest";
import { MAX_SEED, Prng, randomSeed } from "../../src/synth/prng";

// The seeded PRNG (sfc32, seeded through splitmix32) behind every replayable batch.

/** The first three draws of seed MAX_SEED, computed from the implementation when it became sfc32. */
const MAX_SEED_DRAWS = [0.3291638479568064, 0.021318244049325585, 0.7642670690547675];

describe("Prng seeds", () => {
  it.each([
    [-1, "seed must be an integer in 0..4294967295, got -1"],
    [1.5, "seed must be an integer in 0..4294967295, got 1.5"],
    [2 ** 32, "seed must be an integer in 0..4294967295, got 4294967296"],
    [Number.NaN, "seed must be an integer in 0..4294967295, got NaN"],
    [Number.POSITIVE_INFINITY, "seed must be an integer in 0..4294967295, got Infinity"],
  ])("rejects %s with a RangeError", (seed, message) => {
    expect(() => new Prng(seed)).toThrow(RangeError);
    expect(() => new Prng(seed)).toThrow(message);
  });

  it("accepts 0 and MAX_SEED", () => {
    expect(MAX_SEED).toBe(4294967295);
    expect(() => new Prng(0)).not.toThrow();
    expect(() => new Prng(MAX_SEED)).not.toThrow();
  });

  it("is sfc32 seeded through splitmix32: pinned outputs for seed 0 and MAX_SEED", () => {
    const rng = new Prng(0);
    expect([rng.next(), rng.next(), rng.next()]).toEqual([0.9791452463250607, 0.8250711336731911, 0.2846157543826848]);
    const top = new Prng(MAX_SEED);
    expect([top.next(), top.next(), top.next()]).toEqual(MAX_SEED_DRAWS);
  });

  it("the same seed gives the same stream; a different seed a different one", () => {
    const draw = (seed: number) => {
      const rng = new Prng(seed);
      return Array.from({ length: 50 }, () => rng.next());
    };
    expect(draw(123)).toEqual(draw(123));
    expect(draw(123)).not.toEqual(draw(124));
  });

  it("randomSeed gives a valid seed", () => {
    for (let i = 0; i < 100; i++) {
      const seed = randomSeed();
      expect(Number.isInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThanOrEqual(MAX_SEED);
    }
  });
});

describe("Prng draws", () => {
  it("next() stays in [0, 1)", () => {
    const rng = new Prng(5);
    for (let i = 0; i < 10_000; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it("int(min, max) is inclusive at both ends and never leaves the range", () => {
    const rng = new Prng(9);
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) seen.add(rng.int(1, 5));
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(new Prng(1).int(7, 7)).toBe(7);
  });

  it("pick refuses an empty list", () => {
    expect(() => new Prng(1).pick([])).toThrow("cannot pick from an empty list");
    expect(new Prng(1).pick(["only"])).toBe("only");
  });

  it("sample returns distinct items, at most as many as there are", () => {
    const rng = new Prng(3);
    const items = ["a", "b", "c", "d", "e"];
    for (let i = 0; i < 200; i++) {
      const chosen = rng.sample(items, 3);
      expect(chosen).toHaveLength(3);
      expect(new Set(chosen).size).toBe(3);
      for (const c of chosen) expect(items).toContain(c);
    }
    expect(rng.sample(items, 10).sort()).toEqual(items);
    expect(items).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("uuid() is RFC 4122 version-4 shaped and replays with the seed", () => {
    const rng = new Prng(77);
    for (let i = 0; i < 500; i++) {
      expect(rng.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Prng(1337).uuid()).toBe(new Prng(1337).uuid());
  });
});
