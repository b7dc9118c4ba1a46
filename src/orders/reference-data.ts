/**
 * The catalog and customers in seed/ are the single source of truth: the order
 * API validates against them and the seeded generator samples them, so an
 * edited seed file changes what "valid" means for both at once.
 */
import { z } from "zod/v4";
import catalogJson from "../../seed/catalog.json";
import customersJson from "../../seed/customers.json";

export const ChannelSchema = z.enum(["web", "mobile", "store", "partner", "phone"]);

const SkuSchema = z.object({
  sku: z.string().regex(/^SKU-\d{4}$/),
  name: z.string().min(1),
  unit_price_cents: z.number().int().positive(),
  in_stock: z.boolean(),
});
type Sku = z.infer<typeof SkuSchema>;

const CustomerSchema = z.object({
  customer_id: z.string().regex(/^CUST-\d{4}$/),
  name: z.string().min(1),
  email: z.string().email(),
  tier: z.string().min(1),
  allowed_channels: z.array(ChannelSchema).min(1),
});
type Customer = z.infer<typeof CustomerSchema>;

export interface ReferenceData {
  readonly skus: ReadonlyMap<string, Sku>;
  readonly customers: ReadonlyMap<string, Customer>;
  /** In-stock SKUs in file order: the rows the seeded generator draws from. */
  readonly sellable: readonly Sku[];
  readonly customerList: readonly Customer[];
}

export function buildReferenceData(catalog: unknown, customers: unknown): ReferenceData {
  const skus = z.object({ skus: z.array(SkuSchema).min(1) }).parse(catalog).skus;
  const people = z.object({ customers: z.array(CustomerSchema).min(1) }).parse(customers).customers;
  const skuMap = new Map(skus.map((s) => [s.sku, s]));
  const customerMap = new Map(people.map((c) => [c.customer_id, c]));
  if (skuMap.size !== skus.length) throw new Error("seed/catalog.json repeats a sku");
  if (customerMap.size !== people.length) throw new Error("seed/customers.json repeats a customer_id");
  const sellable = skus.filter((s) => s.in_stock);
  if (sellable.length === 0) throw new Error("seed/catalog.json has no sku in stock");
  return { skus: skuMap, customers: customerMap, sellable, customerList: people };
}

let built: ReferenceData | undefined;
const fromSeed = (): ReferenceData => (built ??= buildReferenceData(catalogJson, customersJson));

/**
 * The reference data from seed/, validated on first use rather than at import:
 * a cold start that never looks at the catalog (an approval page, a health
 * check) does not pay for parsing it.
 */
export const referenceData: ReferenceData = {
  get skus() {
    return fromSeed().skus;
  },
  get customers() {
    return fromSeed().customers;
  },
  get sellable() {
    return fromSeed().sellable;
  },
  get customerList() {
    return fromSeed().customerList;
  },
};
