import { fail, ok, type Result } from "../core/errors";
import { ACCOUNT_HEADER, ACTOR_HEADER, HealthSchema, type Health, type OrderRequest } from "../orders/intake-schemas";

/**
 * The only way synthetic traffic leaves the AccountAgent: the ORDER_API service
 * binding declared in wrangler.toml. No tool argument can name a URL, host or
 * binding; the base URL below is a placeholder that service bindings ignore.
 */
export const TARGET_NAME = "ORDER_API (service binding in wrangler.toml)";
const BINDING_BASE_URL = "https://order-api.binding";
/** How long one request to the target may take before it counts as unreachable. */
export const TARGET_TIMEOUT_MS = 10_000;

export interface PostedOrder {
  readonly status: number;
  readonly body: unknown;
}

export interface OrderApiTarget {
  health(): Promise<Result<Health>>;
  postOrder(order: OrderRequest): Promise<Result<PostedOrder>>;
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error) return error.name === "TimeoutError" ? "timed out" : error.message;
  return String(error);
}

export function unreachable(problem: string) {
  return fail("upstream_unreachable", `cannot reach the order API at ${TARGET_NAME}: ${problem}`);
}

export function orderApiTarget(binding: Fetcher, account: string, timeoutMs: number, actor?: string): OrderApiTarget {
  // The same for every request of this target, and every order is one: built once.
  const callerHeaders: Record<string, string> = { [ACCOUNT_HEADER]: account };
  // Percent-encoded: operator names may hold characters a header value cannot.
  if (actor !== undefined) callerHeaders[ACTOR_HEADER] = encodeURIComponent(actor);
  const orderHeaders = { ...callerHeaders, "content-type": "application/json" };

  async function call(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Result<Response>> {
    try {
      return ok(await binding.fetch(`${BINDING_BASE_URL}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) }));
    } catch (error) {
      return unreachable(describeFetchError(error));
    }
  }

  return {
    async health() {
      const response = await call("/api/health", { method: "GET", headers: callerHeaders });
      if (!response.ok) return response;
      const body: unknown = await response.value.json().catch(() => undefined);
      const health = HealthSchema.safeParse(body);
      if (response.value.status !== 200 || !health.success) {
        return unreachable(`GET /api/health answered ${response.value.status} without a health report`);
      }
      return ok(health.data);
    },
    async postOrder(order) {
      const response = await call("/api/orders", { method: "POST", headers: orderHeaders, body: JSON.stringify(order) });
      if (!response.ok) return response;
      const body: unknown = await response.value.json().catch(() => null);
      return ok({ status: response.value.status, body });
    },
  };
}
