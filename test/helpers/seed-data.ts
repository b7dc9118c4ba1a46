/** The seed files as the tests read them, to compare what the tools answer with what was loaded. */
import { env } from "cloudflare:workers";
import customersJson from "../../seed/customers.json";
import operationsJson from "../../seed/operations.json";
import { SEED_VERSION } from "../../src/store/seed-loader";

interface SeedCustomer {
  customer_id: string;
  name: string;
  email: string;
  tier: string;
}

export const customers = new Map((customersJson.customers as SeedCustomer[]).map((c) => [c.customer_id, c]));
const seedById = new Map(operationsJson.orders.map((o) => [o.order_id, o]));

/** One order of seed/operations.json, by id. */
export function seed(orderId: string) {
  const order = seedById.get(orderId);
  if (!order) throw new Error(`${orderId} is not in seed/operations.json`);
  return order;
}

/** When the seed was loaded (epoch ms): its "minutes ago" count back from here. The seed must be loaded first. */
export async function seedAnchorMs(): Promise<number> {
  const anchor = await env.DB.prepare("SELECT anchored_at FROM seed_runs WHERE seed_version = ?")
    .bind(SEED_VERSION)
    .first<{ anchored_at: string }>();
  if (!anchor) throw new Error("the seed was not loaded");
  return Date.parse(anchor.anchored_at);
}
