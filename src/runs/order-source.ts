import type { ReferenceData } from "../orders/reference-data";
import { OrderCursor } from "../synth/generators";
import { type DrilledOrder, drilled } from "./drill";
import type { RunPlan } from "./run-schemas";

/**
 * Order i of a run, always the same for the same seed: the seed's stream
 * drawn forward (rebuilt only when a resume goes back), with the drill's
 * breakage applied. A shard makes only its own orders and skips the rest
 * (OrderCursor), so n shards cost about one stream, not n.
 */
export class OrderSource {
  private stream: OrderCursor | undefined;

  constructor(
    private readonly plan: Pick<RunPlan, "mode" | "seed" | "invalid_share">,
    private readonly reference: ReferenceData,
  ) {}

  at(index: number): DrilledOrder {
    const { mode, seed, invalid_share: share } = this.plan;
    if (!this.stream || this.stream.position > index) this.stream = new OrderCursor(mode, seed, this.reference);
    this.stream.skip(index - this.stream.position);
    return drilled(this.stream.next(), share, seed, index, this.reference);
  }
}
