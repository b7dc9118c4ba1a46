// What `npm run bench` sends to the project, on either port: /health, raw
// JSON-RPC, send_orders, and intake orders posted like any API client.
import { randomUUID } from "node:crypto";
import type { FloorOrder } from "./floor.ts";
import { rawRpc } from "./mcp.ts";
import { processCpuMs } from "./process-memory.ts";

export interface Project {
  health(): Promise<void>;
  rpc(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A tool call that must succeed; its structured result. */
  tool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** POST /api/orders with the operator's bearer token; anything but 201 throws. */
  postOrder(order: FloorOrder): Promise<void>;
  /** The tools/list answer's body as the server sends it. */
  listBody(): Promise<string>;
  /** send_orders with a fresh seed; every order must be accepted. */
  sendOrders(count: number): Promise<{ accepted: number; seconds: number }>;
}

const randomSeed = () => Math.floor(Math.random() * 4_000_000_000);

export function project(baseUrl: string, token: string): Project {
  const rpc = (method: string, params?: Record<string, unknown>) => rawRpc(baseUrl, token, method, params);
  const tool = async (name: string, args: Record<string, unknown>) =>
    ((await rpc("tools/call", { name, arguments: args })).structuredContent ?? {}) as Record<string, unknown>;
  return {
    async health() {
      const response = await fetch(`${baseUrl}/health`);
      if (!response.ok) throw new Error(`/health: HTTP ${response.status}`);
      await response.arrayBuffer();
    },
    rpc,
    tool,
    async listBody() {
      const response = await fetch(`${baseUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      return response.text();
    },
    async postOrder(order) {
      const response = await fetch(`${baseUrl}/api/orders`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(order),
      });
      const body = await response.text();
      if (response.status !== 201) throw new Error(`POST /api/orders: HTTP ${response.status} ${body.slice(0, 200)}`);
    },
    async sendOrders(count) {
      const started = performance.now();
      const tally = (await tool("send_orders", { count, seed: randomSeed() })) as {
        accepted?: number;
        requested?: number;
      };
      const seconds = (performance.now() - started) / 1000;
      if (tally.accepted !== count)
        throw new Error(`send_orders ${count}: only ${tally.accepted} of ${tally.requested} accepted`);
      return { accepted: count, seconds };
    },
  };
}

/** The same order under a new request_id, so every post creates one. */
export const freshOrder = (template: FloorOrder): FloorOrder => ({ ...template, request_id: randomUUID() });

const SETTLE_WINDOW_MS = 150;
/** A window with less CPU than this counts as quiet: the idle runtime uses none. */
const QUIET_CPU_MS = 10;
/** Quiet windows in a row that end the wait: longer than the object's 200 ms between seal passes. */
const QUIET_WINDOWS = 3;

/**
 * Waits until the runtime has finished what the last requests left running
 * (the account object seals their audit events after answering), at most a
 * few seconds: that work is charged to the figure that caused it, and the
 * next figure starts on a quiet runtime.
 */
export async function settle(pid: number): Promise<void> {
  let quiet = 0;
  for (let window = 0; window < 40 && quiet < QUIET_WINDOWS; window++) {
    const before = await processCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WINDOW_MS));
    const after = await processCpuMs(pid);
    if (before === undefined || after === undefined) return;
    quiet = after - before < QUIET_CPU_MS ? quiet + 1 : 0;
  }
}

/**
 * Runs `work` and says how much CPU the runtime's process spent on it,
 * including the background work it left (NaN without /proc). It settles
 * after the work, so figures measured one after another start quiet; call
 * settle() before the first when anything else ran before it.
 */
export async function measured<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = await processCpuMs(pid);
  const result = await work();
  await settle(pid);
  const after = await processCpuMs(pid);
  return { result, cpuMs: before === undefined || after === undefined ? Number.NaN : after - before };
}
