import type { OrderRequest } from "../orders/intake-schemas";
import type { ReferenceData } from "../orders/reference-data";
import { orderStream } from "../synth/generators";
import { type DrilledOrder, drilled } from "./drill";
import type { RunPlan } from "./run-schemas";

/**
 * Order i of a run, always the same for the same seed: the seed's stream
 * drawn forward (rebuilt only when a resume goes back), with the drill's
 * breakage applied.
 */
export class OrderSource {
  private stream: { orders: Iterator<OrderRequest>; position: number } | undefined;

  constructor(
    private readonly plan: Pick<RunPlan, "mode" | "seed" | "invalid_share">,
    private readonly reference: ReferenceData,
  ) {}

  at(index: number): DrilledOrder {
    const { mode, seed, invalid_share: share } = this.plan;
    if (!this.stream || this.stream.position > index)
      this.stream = { orders: orderStream(mode, seed, this.reference), position: 0 };
    let order = this.stream.orders.next().value as OrderRequest;
    this.stream.position++;
    while (this.stream.position <= index) {
      order = this.stream.orders.next().value as OrderRequest;
      this.stream.position++;
    }
    return drilled(order, share, seed, index, this.reference);
  }
}
