import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import app from "../../src/index";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN, GLOBEX_TOKEN, READER_TOKEN } from "../helpers/tokens";

// One isolate serves many credentials at once. Whatever it keeps between
// requests (the configuration, loaded modules, memoised schemas), each request
// sees its own account, operator and scopes, never another's.

/** One env object for every request, so the configuration and whatever hangs off it are shared. */
const SHARED_ENV = {
  ...env,
  MCP_TOKENS: JSON.stringify({
    [ACME_TOKEN]: { account: "acme", operator: "Ada" },
    [GLOBEX_TOKEN]: { account: "globex", operator: "Gus" },
    [READER_TOKEN]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
  }),
} as Env;

async function call(token: string, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const request = new Request(MCP_URL, {
    method: "POST",
    headers: mcpHeaders({ token }),
    body: JSON.stringify(rpc(1, method, params)),
  });
  const response = await app.fetch(request, SHARED_ENV, createExecutionContext());
  expect(response.status).toBe(200);
  const body = (await response.json()) as JsonRpcMessage;
  expect(body.error).toBeUndefined();
  return body.result ?? {};
}

const toolNames = async (token: string) =>
  ((await call(token, "tools/list")).tools as { name: string }[]).map((tool) => tool.name);
const promptNames = async (token: string) =>
  ((await call(token, "prompts/list")).prompts as { name: string }[]).map((prompt) => prompt.name);

async function exceptionIds(token: string): Promise<string[]> {
  const result = await call(token, "tools/call", { name: "list_order_exceptions", arguments: {} });
  const queue = result.structuredContent as { exceptions: { order_id: string }[] };
  return queue.exceptions.map((exception) => exception.order_id).sort();
}

async function statusOf(token: string, orderId: string): Promise<string> {
  const result = await call(token, "tools/call", { name: "get_order_status", arguments: { order_id: orderId } });
  return result.isError === true ? "not found" : String((result.structuredContent as { status: string }).status);
}

describe("requests of different accounts and scopes, interleaved in one isolate", () => {
  it("each sees its own account's orders and its own scopes' tools, however they interleave", async () => {
    const [acmeQueue, globexQueue, fullList, readerList, fullPrompts, readerPrompts] = await Promise.all([
      exceptionIds(ACME_TOKEN),
      exceptionIds(GLOBEX_TOKEN),
      toolNames(ACME_TOKEN),
      toolNames(READER_TOKEN),
      promptNames(ACME_TOKEN),
      promptNames(READER_TOKEN),
    ]);
    expect(acmeQueue.length).toBeGreaterThan(0);
    expect(globexQueue.length).toBeGreaterThan(0);
    expect(acmeQueue.every((id) => id.startsWith("ORD-10"))).toBe(true);
    expect(globexQueue.every((id) => id.startsWith("ORD-20"))).toBe(true);
    expect(fullList).toContain("send_orders");
    expect(readerList).not.toContain("send_orders");
    expect(readerList).toContain("get_order_status");
    expect(fullPrompts).toContain("load_test");
    expect(readerPrompts).not.toContain("load_test");

    // Many at once, in a mixed order, so requests of different accounts and scopes overlap.
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async () => ({
        acme: await exceptionIds(ACME_TOKEN),
        reader: await toolNames(READER_TOKEN),
        globex: await exceptionIds(GLOBEX_TOKEN),
        readerPrompts: await promptNames(READER_TOKEN),
        full: await toolNames(ACME_TOKEN),
        fullPrompts: await promptNames(ACME_TOKEN),
        globexSeesAcme: await statusOf(GLOBEX_TOKEN, "ORD-1001"),
        acmeSeesGlobex: await statusOf(ACME_TOKEN, "ORD-2001"),
        acmeOwn: await statusOf(ACME_TOKEN, "ORD-1001"),
      })),
    );
    for (const round of rounds) {
      expect(round).toEqual({
        acme: acmeQueue,
        reader: readerList,
        globex: globexQueue,
        readerPrompts,
        full: fullList,
        fullPrompts,
        globexSeesAcme: "not found",
        acmeSeesGlobex: "not found",
        acmeOwn: expect.not.stringMatching(/^not found$/),
      });
    }
  });
});
