import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER } from "../../src/http/d1-bookmark";
import worker from "../../src/index";
import type { AuditLog, OrderDetails, SimulatedFailure } from "../../src/orders/tool-outputs";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// An agent's reads through /mcp, with the D1 bookmark carried from answer to
// request (src/http/d1-bookmark.ts, src/store/read-session.ts): each request's
// read session starts where the last answer said, so with read replication a
// replica near the caller can serve it, and never one older than the caller's
// own writes. The Worker runs here with its D1 binding watched, to show where
// each request's session started.

const BOOKMARK = /^[0-9a-f]+(-[0-9a-f]+)+$/;

interface Answer<T> {
  readonly result: T;
  readonly handedOn: string | null;
  /** Where each D1 session the Worker opened for this request started. */
  readonly starts: readonly string[];
}

/** One tools/call on /mcp, carrying `carried` if given, with the Worker's D1 binding watched. */
async function call<T>(name: string, args: Record<string, unknown>, carried?: string): Promise<Answer<T>> {
  const starts: string[] = [];
  const DB = new Proxy(env.DB, {
    get(target, property) {
      if (property === "withSession")
        return (start: string) => {
          starts.push(start);
          return target.withSession(start);
        };
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const headers = mcpHeaders({
    token: ACME_TOKEN,
    accept: "application/json",
    headers: { "mcp-protocol-version": "2025-11-25", ...(carried ? { [BOOKMARK_HEADER]: carried } : {}) },
  });
  const request = new Request(MCP_URL, {
    method: "POST",
    headers,
    body: JSON.stringify(rpc(1, "tools/call", { name, arguments: args })),
  });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, DB }, ctx);
  await waitOnExecutionContext(ctx);
  const message = (await response.json()) as JsonRpcMessage;
  const result = message.result as { structuredContent?: T; isError?: boolean } | undefined;
  if (!result?.structuredContent || result.isError) throw new Error(`${name}: ${JSON.stringify(message)}`);
  return { result: result.structuredContent, handedOn: response.headers.get(BOOKMARK_HEADER), starts };
}

describe("reads through /mcp with the D1 bookmark carried", () => {
  it("a read hands on a bookmark, and the next read that carries it starts its session there", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const first = await call<OrderDetails>("get_order_details", { order_id: orderId });
    expect(first.starts).toEqual(["first-primary"]);
    expect(first.handedOn).toMatch(BOOKMARK);

    const second = await call<OrderDetails>("get_order_details", { order_id: orderId }, first.handedOn ?? "");
    expect(second.result.order_id).toBe(orderId);
    expect(second.starts).toEqual([first.handedOn]);
    expect((second.handedOn ?? "") >= (first.handedOn ?? "")).toBe(true);
  });

  it("a write the Worker makes (simulate_new_failure) hands on a bookmark past it, and a read carrying it sees the order", async () => {
    const before = await call<{ count: number }>("list_order_exceptions", {});
    const simulated = await call<SimulatedFailure>("simulate_new_failure", {}, before.handedOn ?? "");
    expect(simulated.handedOn).toMatch(BOOKMARK);
    expect((simulated.handedOn ?? "") > (before.handedOn ?? "")).toBe(true);

    const read = await call<OrderDetails>(
      "get_order_details",
      { order_id: simulated.result.order_id },
      simulated.handedOn ?? "",
    );
    expect(read.starts).toEqual([simulated.handedOn]);
    expect(read.result.order_id).toBe(simulated.result.order_id);
  });

  it("a write in the account's object (propose_resolution) hands on the primary, where the next read starts and sees it", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const read = await call<OrderDetails>("get_order_details", { order_id: orderId });
    const proposed = await call<ProposalView>("propose_resolution", { order_id: orderId }, read.handedOn ?? "");
    // The object wrote on the primary; its bookmark never reaches the Worker, so the caller is sent there.
    expect(proposed.handedOn).toBe("first-primary");

    const log = await call<AuditLog>("get_order_audit_log", { order_id: orderId }, proposed.handedOn ?? "");
    expect(log.starts).toEqual(["first-primary"]);
    expect(log.result.events.map((event) => event.event_type)).toContain("proposal_created");
    expect(log.handedOn).toMatch(BOOKMARK);
  });

  it("a caller that carries nothing has every read start at the primary, which has every write", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    await call<ProposalView>("propose_resolution", { order_id: orderId });
    const log = await call<AuditLog>("get_order_audit_log", { order_id: orderId });
    expect(log.starts).toEqual(["first-primary"]);
    expect(log.result.events.map((event) => event.event_type)).toContain("proposal_created");
  });
});
