// The smoke run's second target: a tiny order API on this machine
// (order-api-server.ts) and a second `wrangler dev` whose ORDER_API_URL points
// at it. Started beside the main server, so it adds little to the run.
import { type DevServer, startDevServer } from "./dev-server.ts";
import { callTool, connect } from "./mcp.ts";
import { type OrderApiServer, SECOND_API_HEALTH, startOrderApiServer } from "./order-api-server.ts";

const ACME = "acme-dev-token";
const SECOND_API_TOKEN = "smoke-second-api-token";

export interface UrlTargetStack {
  readonly api: OrderApiServer;
  readonly worker: DevServer;
  stop(): Promise<void>;
}

export async function startUrlTargetStack(): Promise<UrlTargetStack> {
  const api = await startOrderApiServer(SECOND_API_TOKEN);
  try {
    const worker = await startDevServer({
      quiet: true,
      vars: { ORDER_API_URL: api.url, ORDER_API_TOKEN: SECOND_API_TOKEN },
    });
    return { api, worker, stop: async () => void (await Promise.all([worker.stop(), api.close()])) };
  } catch (error) {
    await api.close();
    throw error;
  }
}

type Check = (label: string, condition: boolean, detail?: string) => void;

/** check_target names the URL, and send_orders lands its batch there with the account, actor and token. */
export async function checkUrlTarget({ api, worker }: UrlTargetStack, check: Check): Promise<void> {
  const client = await connect(worker.url, ACME);
  try {
    const target = await callTool(client, "check_target");
    check(
      "with ORDER_API_URL set, check_target names it, its allowed host and the second API's counts",
      target.structured?.target === `ORDER_API_URL ${api.url} (fixed in configuration)` &&
        target.structured?.allowed_host === new URL(api.url).host &&
        target.structured?.reachable === true &&
        target.structured?.skus === SECOND_API_HEALTH.skus,
      target.text,
    );
    const seed = Math.floor(Math.random() * 1_000_000);
    const sent = await callTool(client, "send_orders", { count: 3, seed });
    const received = api.received.filter((order) => order.status === 201);
    check(
      "send_orders with ORDER_API_URL: 3 accepted by the second API, with the account header and its bearer token",
      sent.structured?.accepted === 3 &&
        received.length === 3 &&
        received.every((order) => order.account === "acme" && order.authorization === `Bearer ${SECOND_API_TOKEN}`),
      `${sent.text.slice(0, 120)}; the second API took ${received.length}`,
    );
  } finally {
    await client.close();
  }
}
