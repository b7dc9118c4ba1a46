/**
 * The only ways synthetic traffic leaves the AccountAgent: the ORDER_API
 * service binding declared in wrangler.toml, or, when it is set, the order
 * API at ORDER_API_URL. Both are configuration; no tool argument can name a
 * URL, host or binding, and no redirect is followed to another one.
 */
import type { Config } from "../config/config";
import type { OrderApiUrl } from "../config/order-api-url";
import { fail, ok, type Result } from "../core/errors";
import { InvocationLimiter, type LimitedFetch } from "../core/platform-limits";
import {
  ACCOUNT_HEADER,
  ACTOR_HEADER,
  type Health,
  HealthSchema,
  type OrderRequest,
  SCHEDULED_AT_HEADER,
} from "../orders/intake-schemas";
import { DeadlineSweep } from "./deadline-sweep";

export const BINDING_TARGET_NAME = "ORDER_API (service binding in wrangler.toml)";
/** A placeholder that service bindings ignore. */
const BINDING_BASE_URL = "https://order-api.binding";
/** How long one request to the target may take before it counts as unreachable. */
export const TARGET_TIMEOUT_MS = 10_000;
/** More than any intake answer needs; a target cannot make the object hold a huge body. */
const MAX_ANSWER_BYTES = 64 * 1024;
const utf8 = new TextDecoder();

export interface PostedOrder {
  readonly status: number;
  readonly body: unknown;
}

/** What a load test adds to one order: when it was scheduled, and a call at the moment it is handed to fetch. */
export interface PostOptions {
  /**
   * Sent as the x-order-ops-scheduled-at header (epoch ms), so a target's own log can time each order from its
   * schedule.
   */
  readonly scheduledAtMs?: number;
  /**
   * Called when the request really leaves: after any wait for one of the invocation's connections
   * (platform-limits.ts), just before fetch. Where lateness ends and service time starts.
   */
  readonly onSent?: () => void;
  /** The body of a 2xx answer is not needed: it is not read, only the status (a load test's accepted orders). */
  readonly statusOnly?: boolean;
}

export interface OrderApiTarget {
  health(): Promise<Result<Health>>;
  postOrder(order: OrderRequest, options?: PostOptions): Promise<Result<PostedOrder>>;
}

/** Which target the configuration names, as check_target and every message about it say. */
export interface TargetDescription {
  readonly name: string;
  /** The one host a URL target may reach; null for the binding, which has no host. */
  readonly allowedHost: string | null;
}

const urlTargetName = (url: string) => `ORDER_API_URL ${url} (fixed in configuration)`;

export function describeTarget(config: Config): TargetDescription {
  const { orderApiUrl } = config;
  if (orderApiUrl === undefined) return { name: BINDING_TARGET_NAME, allowedHost: null };
  return { name: urlTargetName(orderApiUrl.url), allowedHost: orderApiUrl.host };
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error) return error.name === "TimeoutError" ? "timed out" : error.message;
  return String(error);
}

export function unreachable(problem: string, target: string = BINDING_TARGET_NAME) {
  return fail("upstream_unreachable", `cannot reach the order API at ${target}: ${problem}`);
}

/** Where a redirect pointed, by host only: its path and query may carry what is not ours to log. */
function redirectHost(response: Response, from: string): string {
  const location = response.headers.get("location");
  if (location === null) return "no Location";
  try {
    return new URL(location, from).host;
  } catch {
    return "an invalid Location";
  }
}

async function readJson(response: Response): Promise<unknown> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > 0 && declared <= MAX_ANSWER_BYTES)
    return response.json().catch(() => null);
  const reader = response.body?.getReader();
  if (!reader) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return { message: `answer body over ${MAX_ANSWER_BYTES / 1024} KiB, not read` };
    }
    chunks.push(read.value);
  }
  // Usually one chunk: an intake answer is a few hundred bytes.
  let bytes = chunks[0] ?? new Uint8Array(0);
  if (chunks.length > 1) {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
}

interface Transport {
  /** How messages name the target. */
  readonly name: string;
  /** The base that /api/... is appended to. */
  readonly base: string;
  readonly fetch: LimitedFetch;
  /** Headers only this transport sends, such as the URL target's credential. */
  readonly headers: Readonly<Record<string, string>>;
}

function httpTarget(
  transport: Transport,
  account: string,
  timeoutMs: number,
  actor: string | undefined,
): OrderApiTarget {
  // The same for every request of this target, and every order is one: built once.
  const callerHeaders: Record<string, string> = { ...transport.headers, [ACCOUNT_HEADER]: account };
  // Percent-encoded: operator names may hold characters a header value cannot.
  if (actor !== undefined) callerHeaders[ACTOR_HEADER] = encodeURIComponent(actor);
  const orderHeaders: Record<string, string> = { "content-type": "application/json", ...callerHeaders };

  // One timer for every request's deadline, not one per request (deadline-sweep.ts).
  const deadlines = new DeadlineSweep(timeoutMs);

  async function call(
    path: string,
    init: RequestInit & { headers: Record<string, string> },
    onSent?: () => void,
  ): Promise<Result<Response>> {
    const deadline = deadlines.start();
    try {
      const url = `${transport.base}${path}`;
      const request = { ...init, redirect: "manual" as const, signal: deadline.signal };
      return ok(await transport.fetch(url, request, onSent));
    } catch (error) {
      return unreachable(describeFetchError(error), transport.name);
    } finally {
      // The deadline covers the wait for headers; a body is read within MAX_ANSWER_BYTES.
      deadline.done();
    }
  }
  const isRedirect = (response: Response) => response.status >= 300 && response.status < 400;

  return {
    async health() {
      const response = await call("/api/health", { method: "GET", headers: callerHeaders });
      if (!response.ok) return response;
      const answer = response.value;
      if (isRedirect(answer)) {
        await answer.body?.cancel();
        return unreachable(
          `GET /api/health answered ${answer.status}, a redirect to ${redirectHost(answer, transport.base)}, which is not followed`,
          transport.name,
        );
      }
      const health = HealthSchema.safeParse(await readJson(answer));
      if (answer.status !== 200 || !health.success) {
        return unreachable(`GET /api/health answered ${answer.status} without a health report`, transport.name);
      }
      return ok(health.data);
    },
    async postOrder(order, options = {}) {
      const headers =
        options.scheduledAtMs === undefined
          ? orderHeaders
          : { ...orderHeaders, [SCHEDULED_AT_HEADER]: String(Math.round(options.scheduledAtMs)) };
      const response = await call(
        "/api/orders",
        { method: "POST", headers, body: JSON.stringify(order) },
        options.onSent,
      );
      if (!response.ok) return response;
      const answer = response.value;
      // An answer all the same: the order API said where else to go, and traffic goes nowhere else.
      if (isRedirect(answer)) {
        await answer.body?.cancel();
        return ok({
          status: answer.status,
          body: { message: `redirect to ${redirectHost(answer, transport.base)} not followed` },
        });
      }
      if (options.statusOnly && answer.status >= 200 && answer.status < 300) {
        await answer.body?.cancel();
        return ok({ status: answer.status, body: null });
      }
      return ok({ status: answer.status, body: await readJson(answer) });
    },
  };
}

/**
 * `limiter`: the invocation's platform limits (platform-limits.ts), around every request of this target; none by
 * default.
 */
export function orderApiTarget(
  binding: Fetcher,
  account: string,
  timeoutMs: number,
  actor?: string,
  limiter: InvocationLimiter = new InvocationLimiter(null),
): OrderApiTarget {
  const transport = {
    name: BINDING_TARGET_NAME,
    base: BINDING_BASE_URL,
    fetch: limiter.wrap((url: string, init: RequestInit) => binding.fetch(url, init)),
    headers: {},
  };
  return httpTarget(transport, account, timeoutMs, actor);
}

export function urlTarget(
  target: OrderApiUrl,
  account: string,
  timeoutMs: number,
  actor?: string,
  limiter: InvocationLimiter = new InvocationLimiter(null),
): OrderApiTarget {
  const headers: Record<string, string> = target.token === undefined ? {} : { authorization: `Bearer ${target.token}` };
  const transport = {
    name: urlTargetName(target.url),
    base: target.url,
    fetch: limiter.wrap((url: string, init: RequestInit) => fetch(url, init)),
    headers,
  };
  return httpTarget(transport, account, timeoutMs, actor);
}

/**
 * The target the configuration names, as seen by `actor`: the URL target when
 * ORDER_API_URL is set, otherwise the ORDER_API binding. Call it per use, with
 * the env of that moment, since the binding is the way out of the object. A
 * use is one invocation: its requests are held to the platform's limits of
 * one (PLATFORM_LIMITS), through `limiter` or a fresh one.
 */
export function configuredTarget(
  env: { readonly ORDER_API: Fetcher },
  config: Config,
  account: string,
  actor?: string,
  limiter: InvocationLimiter = new InvocationLimiter(config.platformLimits),
): OrderApiTarget {
  return config.orderApiUrl === undefined
    ? orderApiTarget(env.ORDER_API, account, TARGET_TIMEOUT_MS, actor, limiter)
    : urlTarget(config.orderApiUrl, account, TARGET_TIMEOUT_MS, actor, limiter);
}
