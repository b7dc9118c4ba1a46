/**
 * A small deterministic PRNG. Generated orders must be byte-identical for the
 * same seed on every runtime, which rules out Math.random and anything seeded
 * from the clock. sfc32 keeps 128 bits of state, filled from the seed through
 * splitmix32, so distinct seeds start independent streams: no seed replays a
 * shifted copy of another seed's orders (and their request ids).
 */
import { HEX_DIGITS } from "../core/encoding";

export const MAX_SEED = 0xffff_ffff;

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
      throw new RangeError(`seed must be an integer in 0..${MAX_SEED}, got ${seed}`);
    }
    const fill = splitmix32(seed);
    this.a = fill();
    this.b = fill();
    this.c = fill();
    this.d = fill();
    // Warm up so the first outputs do not mirror the seeding sequence.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  private nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError("cannot pick from an empty list");
    return item;
  }

  /** `count` distinct items, in draw order (partial Fisher-Yates). */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const chosen: T[] = [];
    for (let i = 0; i < count && pool.length > 0; i++) {
      const [item] = pool.splice(this.int(0, pool.length - 1), 1);
      if (item !== undefined) chosen.push(item);
    }
    return chosen;
  }

  /** An RFC 4122 version-4 shaped UUID drawn from this stream, so request ids replay too. */
  uuid(): string {
    // Every generated order draws one; sixteen draws, in order, written straight as hex.
    let out = "";
    for (let index = 0; index < 16; index++) {
      const drawn = this.int(0, 255);
      const byte = index === 6 ? (drawn & 0x0f) | 0x40 : index === 8 ? (drawn & 0x3f) | 0x80 : drawn;
      out += HEX_DIGITS[byte];
      if (index === 3 || index === 5 || index === 7 || index === 9) out += "-";
    }
    return out;
  }
}

/** A fresh seed for callers that did not pass one; it is reported back so the batch can be replayed. */
export function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] ?? 0;
}
