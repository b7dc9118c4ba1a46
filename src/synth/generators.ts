import { z } from "zod/v4";
import { filedByName } from "../core/registry";
import type { OrderRequest } from "../orders/intake-schemas";
import type { ReferenceData } from "../orders/reference-data";
import type { GeneratorModeDefinition } from "./modes/generator-mode";
import { seeded } from "./modes/seeded-mode";
import { simple } from "./modes/simple-mode";
import { Prng } from "./prng";

/**
 * The generator modes, each declared whole in its module (synth/modes/): a
 * new mode is its module and one entry here, and the schema, the stream and
 * the tools' description follow from the entry.
 */
const MODES = filedByName({ seeded, simple });

export type GeneratorMode = keyof typeof MODES;
const MODE_NAMES = Object.keys(MODES) as GeneratorMode[];
export const GeneratorModeSchema = z.enum(MODE_NAMES as [GeneratorMode, ...GeneratorMode[]]);

/** Every mode in a sentence each, for the tools' `mode` parameter. */
export const GENERATOR_MODES_DESCRIBED = MODE_NAMES.map((name) => `"${name}" ${MODES[name].description}`).join(" ");

/**
 * The same stream as orderStream, seekable: `skip(n)` passes n orders at a
 * fraction of the cost of making them, so order i is byte-identical whether
 * it was reached by making or by skipping.
 */
export class OrderCursor {
  private readonly rng: Prng;
  private readonly mode: GeneratorModeDefinition;
  /** The index of the order next() makes. */
  position = 0;

  constructor(
    mode: GeneratorMode,
    seed: number,
    private readonly reference: ReferenceData,
  ) {
    this.rng = new Prng(seed);
    this.mode = MODES[mode];
  }

  next(): OrderRequest {
    this.position++;
    return this.mode.order(this.rng, this.reference);
  }

  skip(count: number): void {
    for (let i = 0; i < count; i++) this.mode.skip(this.rng, this.reference);
    this.position += Math.max(0, count);
  }
}

/**
 * An endless stream of orders from one PRNG: the same mode and seed always
 * give the same sequence, and its first order is the one preview_order shows.
 */
export function* orderStream(
  mode: GeneratorMode,
  seed: number,
  reference: ReferenceData,
): Generator<OrderRequest, never> {
  const rng = new Prng(seed);
  const { order } = MODES[mode];
  for (;;) yield order(rng, reference);
}

/** The first `count` orders of the stream, as an array. */
export function generateOrders(
  mode: GeneratorMode,
  seed: number,
  count: number,
  reference: ReferenceData,
): OrderRequest[] {
  const stream = orderStream(mode, seed, reference);
  return Array.from({ length: count }, () => stream.next().value);
}
