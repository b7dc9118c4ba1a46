import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { JSONRPCRequest } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import app from "../../src/index";
import type { ConnectedTransport } from "../../src/mcp/transport/connected-transport";
import { isWholeToolList, ToolListCache } from "../../src/mcp/transport/tool-list-cache";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN, READER_TOKEN } from "../helpers/tokens";

// A pooled server answers a whole tools/list from the bytes of its first
// answer. What a client reads must be what the SDK answers, id and all, and
// each credential's list stays its own.

const request = (id: number | string, params?: Record<string, unknown>) =>
  rpc(id, "tools/list", params) as JSONRPCRequest;
const HTTP = new Request(MCP_URL, { method: "POST" });

describe("ToolListCache", () => {
  it("asks the SDK once, then answers every id from the kept result", async () => {
    const asked: (number | string)[] = [];
    const transport = {
      exchange: async (message: JSONRPCRequest) => {
        asked.push(message.id);
        return Response.json({
          result: { tools: [{ name: "t", description: "“quoted” ü" }] },
          jsonrpc: "2.0",
          id: message.id,
        });
      },
    } as unknown as ConnectedTransport;
    const listing = new ToolListCache(transport);
    const first = await (await listing.answer(request(1), HTTP)).json();
    const second = await listing.answer(request("two ✓"), HTTP);
    const third = await (await listing.answer(request(3), HTTP)).json();
    expect(asked).toEqual([1]);
    expect(second.headers.get("content-type")).toBe("application/json");
    expect(await second.json()).toEqual({
      jsonrpc: "2.0",
      id: "two ✓",
      result: { tools: [{ name: "t", description: "“quoted” ü" }] },
    });
    expect(third).toEqual({ ...(first as object), id: 3 });
  });

  it("keeps nothing from an error, so the next request asks the SDK again", async () => {
    let calls = 0;
    const transport = {
      exchange: async (message: JSONRPCRequest) => {
        calls++;
        return calls === 1
          ? Response.json({ error: { code: -32603, message: "no" }, jsonrpc: "2.0", id: message.id })
          : Response.json({ result: { tools: [] }, jsonrpc: "2.0", id: message.id });
      },
    } as unknown as ConnectedTransport;
    const listing = new ToolListCache(transport);
    expect(await (await listing.answer(request(1), HTTP)).json()).toMatchObject({ error: { message: "no" } });
    expect(await (await listing.answer(request(2), HTTP)).json()).toMatchObject({ result: { tools: [] } });
    expect(await (await listing.answer(request(3), HTTP)).json()).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { tools: [] },
    });
    expect(calls).toBe(2);
  });

  it.each([
    [undefined, true],
    [{}, true],
    [{ cursor: "abc" }, false],
    [{ _meta: {} }, false],
  ])("a listing with params %j is whole: %s", (params, whole) => {
    expect(isWholeToolList(request(1, params))).toBe(whole);
    expect(isWholeToolList(rpc(1, "prompts/list") as JSONRPCRequest)).toBe(false);
  });
});

describe("tools/list through the Worker", () => {
  // A fresh env object is a fresh configuration, and with it a fresh pool.
  const freshEnv = () =>
    ({
      ...env,
      MCP_TOKENS: JSON.stringify({
        [ACME_TOKEN]: { account: "acme", operator: "Ada" },
        [READER_TOKEN]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
      }),
    }) as Env;

  async function list(
    workerEnv: Env,
    token: string,
    id: number | string,
    params?: Record<string, unknown>,
  ): Promise<{ response: Response; message: JsonRpcMessage }> {
    const response = await app.fetch(
      new Request(MCP_URL, {
        method: "POST",
        headers: mcpHeaders({ token, headers: { "mcp-protocol-version": "2025-11-25" } }),
        body: JSON.stringify(rpc(id, "tools/list", params)),
      }),
      workerEnv,
      createExecutionContext(),
    );
    return { response, message: (await response.clone().json()) as JsonRpcMessage };
  }

  it("a kept answer is the SDK's answer with its own id, and each credential keeps its own list", async () => {
    const workerEnv = freshEnv();
    const first = await list(workerEnv, ACME_TOKEN, 1);
    const kept = await list(workerEnv, ACME_TOKEN, "second");
    // _meta makes it no whole listing: the SDK answers it, as it answered the first.
    const bySdk = await list(workerEnv, ACME_TOKEN, 3, { _meta: {} });
    expect(kept.message.id).toBe("second");
    expect(kept.message.result).toEqual(first.message.result);
    expect(kept.message.result).toEqual(bySdk.message.result);
    expect(kept.response.headers.get("content-type")).toBe(first.response.headers.get("content-type"));
    expect(kept.response.headers.get("x-content-type-options")).toBe("nosniff");

    const names = (message: JsonRpcMessage) =>
      (message.result?.tools as { name: string }[] | undefined)?.map((tool) => tool.name);
    const reader = await list(workerEnv, READER_TOKEN, 4);
    const readerKept = await list(workerEnv, READER_TOKEN, 5);
    expect(readerKept.message.result).toEqual(reader.message.result);
    expect(names(reader.message)).not.toEqual(names(first.message));
    expect(names(reader.message)).not.toContain("send_orders");
    expect(names((await list(workerEnv, ACME_TOKEN, 6)).message)).toContain("send_orders");
  });
});
