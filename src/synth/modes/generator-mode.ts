import type { OrderRequest } from "../../orders/intake-schemas";
import type { ReferenceData } from "../../orders/reference-data";
import type { Prng } from "../prng";

/** Everything about one generator mode; a mode is its module and one entry in generators.ts's MODES. */
export interface GeneratorModeDefinition<Name extends string = string> {
  readonly name: Name;
  /** What the mode makes, after its quoted name, for the tools' `mode` parameter. */
  readonly description: string;
  /** The next order of a stream: the same PRNG state always gives the same order. */
  order(rng: Prng, reference: ReferenceData): OrderRequest;
  /**
   * Advances `rng` past one order exactly as `order` would (every int() and
   * pick() is one draw), without building it: a run's shard seeks to its own
   * orders this way instead of making every order of the run.
   */
  skip(rng: Prng, reference: ReferenceData): void;
}

export const MAX_QUANTITY = 5;
