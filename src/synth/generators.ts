import { z } from "zod/v4";
import type { OrderLine, OrderRequest } from "../orders/intake-schemas";
import { ChannelSchema, type ReferenceData } from "../orders/reference-data";
import { ACCEPTED_CURRENCY, linesTotal } from "../orders/validate-order";
import { Prng } from "./prng";

/**
 * The two generator modes. `seeded` samples the real catalog and customers so
 * the API accepts every order; `simple` invents every field so the API rejects
 * every order, which drills the rejection path.
 */
export const GeneratorModeSchema = z.enum(["seeded", "simple"]);
export type GeneratorMode = z.infer<typeof GeneratorModeSchema>;

const MAX_SEEDED_LINES = 3;
const MAX_SIMPLE_LINES = 4;
const MAX_QUANTITY = 5;

function seededOrder(rng: Prng, reference: ReferenceData): OrderRequest {
  const requestId = rng.uuid();
  const customer = rng.pick(reference.customerList);
  const channel = rng.pick(customer.allowed_channels);
  const skus = rng.sample(reference.sellable, rng.int(1, Math.min(MAX_SEEDED_LINES, reference.sellable.length)));
  const lines: OrderLine[] = skus.map((sku) => ({
    sku: sku.sku,
    quantity: rng.int(1, MAX_QUANTITY),
    unit_price_cents: sku.unit_price_cents,
  }));
  return {
    request_id: requestId,
    customer_id: customer.customer_id,
    channel,
    currency: ACCEPTED_CURRENCY,
    lines,
    total_cents: linesTotal(lines),
  };
}

function fourDigits(rng: Prng): string {
  return String(rng.int(0, 9999)).padStart(4, "0");
}

/** A random SKU that is guaranteed not to be in the catalog, so rejection is certain. */
function unknownSku(rng: Prng, reference: ReferenceData): string {
  for (;;) {
    const sku = `SKU-${fourDigits(rng)}`;
    if (!reference.skus.has(sku)) return sku;
  }
}

function simpleOrder(rng: Prng, reference: ReferenceData): OrderRequest {
  const requestId = rng.uuid();
  const customerId = `C-${fourDigits(rng)}`;
  const channel = rng.pick(ChannelSchema.options);
  const lines: OrderLine[] = Array.from({ length: rng.int(1, MAX_SIMPLE_LINES) }, () => ({
    sku: unknownSku(rng, reference),
    quantity: rng.int(1, MAX_QUANTITY),
    unit_price_cents: rng.int(100, 9999),
  }));
  return {
    request_id: requestId,
    customer_id: customerId,
    channel,
    currency: ACCEPTED_CURRENCY,
    lines,
    total_cents: linesTotal(lines),
  };
}

/**
 * Advances `rng` past one order exactly as making it would (every int() and
 * pick() is one draw), without building it: a run's shard seeks to its own
 * orders this way instead of making every order of the run.
 */
function skipSeeded(rng: Prng, reference: ReferenceData): void {
  // The request id's sixteen draws, the customer, the channel.
  for (let draw = 0; draw < 18; draw++) rng.next();
  const lines = rng.int(1, Math.min(MAX_SEEDED_LINES, reference.sellable.length));
  // Each line's SKU and quantity.
  for (let draw = 0; draw < 2 * lines; draw++) rng.next();
}

function skipSimple(rng: Prng, reference: ReferenceData): void {
  for (let draw = 0; draw < 18; draw++) rng.next();
  const lines = rng.int(1, MAX_SIMPLE_LINES);
  for (let line = 0; line < lines; line++) {
    unknownSku(rng, reference);
    rng.next();
    rng.next();
  }
}

/**
 * The same stream as orderStream, seekable: `skip(n)` passes n orders at a
 * fraction of the cost of making them, so order i is byte-identical whether
 * it was reached by making or by skipping.
 */
export class OrderCursor {
  private readonly rng: Prng;
  private readonly make: (rng: Prng, reference: ReferenceData) => OrderRequest;
  private readonly pass: (rng: Prng, reference: ReferenceData) => void;
  /** The index of the order next() makes. */
  position = 0;

  constructor(
    mode: GeneratorMode,
    seed: number,
    private readonly reference: ReferenceData,
  ) {
    this.rng = new Prng(seed);
    this.make = mode === "seeded" ? seededOrder : simpleOrder;
    this.pass = mode === "seeded" ? skipSeeded : skipSimple;
  }

  next(): OrderRequest {
    this.position++;
    return this.make(this.rng, this.reference);
  }

  skip(count: number): void {
    for (let i = 0; i < count; i++) this.pass(this.rng, this.reference);
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
  const make = mode === "seeded" ? seededOrder : simpleOrder;
  for (;;) yield make(rng, reference);
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
