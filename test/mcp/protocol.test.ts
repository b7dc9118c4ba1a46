import { describe, expect, it } from "vitest";
import { MAX_MCP_BODY_BYTES } from "../../src/mcp/route";
import { ACME_TOKEN, MCP_URL, workerFetch } from "../helpers/mcp-client";
import { initializeRequest, mcpHeaders, postMcp, rpc, sseMessages, type JsonRpcMessage } from "../helpers/mcp-raw";

// Streamable HTTP as the Worker speaks it: stateless, JSON for plain calls,
// SSE only when progress must flow before the result.

const token = ACME_TOKEN;
const randomSeed = (): number => crypto.getRandomValues(new Uint32Array(1))[0] ?? 7;

async function json(response: Response): Promise<JsonRpcMessage> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as JsonRpcMessage;
}

describe("initialize", () => {
  it.each(["2025-03-26", "2025-06-18", "2025-11-25"])("protocol version %s is accepted and echoed", async (version) => {
    const response = await postMcp(initializeRequest(1, version), { token });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.id).toBe(1);
    expect(body.error).toBeUndefined();
    expect(body.result?.protocolVersion).toBe(version);
    expect(body.result?.serverInfo).toEqual({ name: "order-ops-edge", version: "0.1.0" });
    expect(body.result?.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(body.result?.instructions).toContain("check_target");
  });

  it.each(["2020-01-01", "2024-11-05"])("an initialize at %s is offered 2025-11-25, the newest 2025 revision", async (version) => {
    const body = await json(await postMcp(initializeRequest(2, version), { token }));
    expect(body.result?.protocolVersion).toBe("2025-11-25");
  });

  it("a stateless server issues no session id", async () => {
    const response = await postMcp(initializeRequest(3, "2025-06-18"), { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });
});

describe("notifications and plain calls", () => {
  it("a notification is acknowledged with 202 and an empty body", async () => {
    const response = await postMcp({ jsonrpc: "2.0", method: "notifications/initialized" }, { token });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("a plain tools/call gets a JSON response, not a stream", async () => {
    const response = await postMcp(rpc(10, "tools/call", { name: "check_target", arguments: {} }), { token });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.id).toBe(10);
    expect(body.result?.structuredContent).toMatchObject({ reachable: true, skus: 8, customers: 5 });
  });

  it("a plain tools/list gets JSON", async () => {
    const body = await json(await postMcp(rpc(11, "tools/list"), { token }));
    expect((body.result?.tools as { name: string }[]).map((t) => t.name)).toContain("send_orders");
  });

  it("a client that accepts only application/json still works", async () => {
    const response = await postMcp(rpc(12, "tools/call", { name: "preview_order", arguments: { seed: 5 } }), { token, accept: "application/json" });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.result?.structuredContent).toMatchObject({ mode: "seeded", seed: 5 });
  });

  it("a JSON-only client that asks for progress still gets JSON (and the result)", async () => {
    const seed = randomSeed();
    const response = await postMcp(
      rpc(13, "tools/call", { name: "send_orders", arguments: { count: 2, seed }, _meta: { progressToken: "json-only" } }),
      { token, accept: "application/json" },
    );
    const body = await json(response);
    expect(body.result?.structuredContent).toMatchObject({ seed, requested: 2, accepted: 2 });
  });

  it("a client that accepts only text/event-stream gets SSE", async () => {
    const response = await postMcp(rpc(14, "tools/list"), { token, accept: "text/event-stream" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await response.text());
    expect(messages.at(-1)?.id).toBe(14);
    expect(messages.at(-1)?.result?.tools).toBeDefined();
  });

});

describe("JSON-RPC batches (only protocol 2025-03-26 has them)", () => {
  it("without a protocol header (a 2025-03-26 client) a batch gets one JSON array answer in request order", async () => {
    const response = await postMcp([rpc(20, "tools/list"), rpc(21, "resources/list")], { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const answers = (await response.json()) as JsonRpcMessage[];
    expect(answers.map((a) => a.id)).toEqual([20, 21]);
  });

  it("a batch of one at 2025-03-26 is still answered with an array", async () => {
    const response = await postMcp([rpc(22, "tools/list")], { token, headers: { "mcp-protocol-version": "2025-03-26" } });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as JsonRpcMessage[];
    expect(Array.isArray(answers)).toBe(true);
    expect(answers.map((a) => a.id)).toEqual([22]);
  });

  it.each(["2025-06-18", "2025-11-25"])("at %s a batch is refused with -32600 and nothing runs", async (version) => {
    const seed = randomSeed();
    const response = await postMcp([rpc(23, "tools/call", { name: "send_orders", arguments: { count: 1, seed } })], { token, headers: { "mcp-protocol-version": version } });
    expect(response.status).toBe(400);
    expect(await json(response)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid Request: protocol ${version} has no JSON-RPC batches (2025-06-18 removed them); send one message per request` },
    });
    const replay = await json(await postMcp(rpc(24, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }));
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });

  it("an empty batch is refused with -32600", async () => {
    const response = await postMcp([], { token });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toEqual({ code: -32600, message: "Invalid Request: an empty JSON-RPC batch; send at least one message" });
  });

  it("a batch with a request whose params are malformed: that request gets the one-line -32602, and nothing in the batch runs", async () => {
    const seed = randomSeed();
    const response = await postMcp(
      [rpc(26, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), rpc(27, "tools/call", { name: "check_target", arguments: null }), { jsonrpc: "2.0", method: "notifications/initialized" }],
      { token },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { jsonrpc: "2.0", id: 26, error: { code: -32000, message: "Not run: request 27 in the same batch has invalid params, and a batch runs only when every request in it is valid" } },
      { jsonrpc: "2.0", id: 27, error: { code: -32602, message: "Invalid params for tools/call: arguments: must be an object of named arguments (or left out)" } },
    ]);
    const replay = await json(await postMcp(rpc(28, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }));
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });

  it("a batch with an element that is not a message is refused with -32600", async () => {
    const response = await postMcp([rpc(25, "tools/list"), { hello: "world" }], { token });
    expect(response.status).toBe(400);
    expect((await json(response)).error?.code).toBe(-32600);
  });
});

describe("progress over SSE", () => {
  it("a tools/call with a progressToken streams notifications/progress before the result", async () => {
    const seed = randomSeed();
    const response = await postMcp(
      rpc(30, "tools/call", { name: "send_orders", arguments: { count: 5, seed }, _meta: { progressToken: "p-30" } }),
      { token },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await response.text());

    const progress = messages.filter((m) => m.method === "notifications/progress");
    expect(progress.map((m) => m.params)).toEqual([1, 2, 3, 4, 5].map((n) => ({
      progressToken: "p-30",
      progress: n,
      total: 5,
      message: `sent ${n} of 5 orders`,
    })));

    const last = messages.at(-1);
    expect(last?.id).toBe(30);
    expect(last?.result?.structuredContent).toMatchObject({ seed, requested: 5, accepted: 5, status_counts: { "201": 5 } });
    // Every progress event comes before the result, and nothing else is in the stream.
    expect(messages).toHaveLength(progress.length + 1);
    expect(messages.findIndex((m) => m.id === 30)).toBe(messages.length - 1);
  });

  it("progress for a large batch is throttled to about 20 events, ending at total", async () => {
    const response = await postMcp(
      rpc(31, "tools/call", { name: "send_orders", arguments: { count: 100, seed: randomSeed() }, _meta: { progressToken: 31 } }),
      { token },
    );
    const messages = sseMessages(await response.text());
    const progress = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params?.progress);
    expect(progress).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 5));
    expect(messages.at(-1)?.result?.structuredContent).toMatchObject({ requested: 100, accepted: 100 });
  });
});

describe("malformed requests", () => {
  it("a body that is not JSON: 400 JSON-RPC parse error, not 500", async () => {
    const response = await postMcp("{not json", { token });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error?.code).toBe(-32700);
    expect(body.id).toBeNull();
  });

  it("a JSON body that is not JSON-RPC: 400 with -32600 (invalid request), not a parse error", async () => {
    const response = await postMcp({ hello: "world" }, { token });
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error?.code).toBe(-32600);
    expect(body.error?.message).toMatch(/^Invalid Request: the body is JSON but not a JSON-RPC 2\.0 message/);
  });

  it("an empty body: 400 parse error, not 500", async () => {
    const response = await postMcp("", { token });
    expect(response.status).toBe(400);
    expect((await json(response)).error?.code).toBe(-32700);
  });

  it.each([
    ["arguments: null", { name: "check_target", arguments: null }, "Invalid params for tools/call: arguments: must be an object of named arguments (or left out)"],
    ["no name", { arguments: {} }, "Invalid params for tools/call: name is required"],
    ["no params at all", undefined, "Invalid params for tools/call: params is required"],
  ])("tools/call with %s: -32602 with one readable line, echoing the id", async (_label, params, message) => {
    const response = await postMcp(rpc(43, "tools/call", params), { token });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ jsonrpc: "2.0", id: 43, error: { code: -32602, message } });
  });

  it("resources/read without a uri: -32602 naming it", async () => {
    const body = await json(await postMcp(rpc(44, "resources/read", {}), { token }));
    expect(body.error).toEqual({ code: -32602, message: "Invalid params for resources/read: uri is required" });
  });

  it("an unsupported mcp-protocol-version header: 400", async () => {
    const response = await postMcp(rpc(40, "tools/list"), { token, headers: { "mcp-protocol-version": "1999-01-01" } });
    expect(response.status).toBe(400);
    expect((await json(response)).error?.message).toContain("Unsupported protocol version");
  });

  it("an unknown method: JSON-RPC method-not-found", async () => {
    const body = await json(await postMcp(rpc(41, "orders/teleport"), { token }));
    expect(body.error?.code).toBe(-32601);
  });

  it("an unknown tool: -32602 naming the tool, not a crash", async () => {
    const response = await postMcp(rpc(42, "tools/call", { name: "send_orders_to", arguments: { url: "https://evil.example" } }), { token });
    expect(response.status).toBe(200);
    expect((await json(response)).error).toEqual({ code: -32602, message: "Tool send_orders_to not found" });
  });
});

describe("request size", () => {
  const TOO_LARGE = {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "request body is larger than 1048576 bytes" },
  };

  /** A preview_order call padded with trailing JSON whitespace to exactly `bytes` bytes. */
  function paddedCall(id: number, bytes: number): string {
    const call = JSON.stringify(rpc(id, "tools/call", { name: "preview_order", arguments: { seed: 5 } }));
    return call + " ".repeat(bytes - call.length);
  }

  /** The body as a stream of 64 KiB chunks, so no Content-Length is declared. */
  function chunkedPost(body: string): Promise<Response> {
    const bytes = new TextEncoder().encode(body);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.byteLength; offset += 65_536) controller.enqueue(bytes.slice(offset, offset + 65_536));
        controller.close();
      },
    });
    return workerFetch(MCP_URL, { method: "POST", headers: mcpHeaders({ token }), body: stream });
  }

  async function expectTooLarge(response: Response): Promise<void> {
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(TOO_LARGE);
  }

  async function expectPreview(response: Response, id: number): Promise<void> {
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.id).toBe(id);
    expect(body.result?.structuredContent).toMatchObject({ mode: "seeded", seed: 5 });
  }

  it("the limit is 1 MiB", () => {
    expect(MAX_MCP_BODY_BYTES).toBe(1024 * 1024);
  });

  it("a body of exactly 1 MiB is served as usual", async () => {
    const body = paddedCall(50, MAX_MCP_BODY_BYTES);
    expect(body.length).toBe(MAX_MCP_BODY_BYTES);
    await expectPreview(await postMcp(body, { token }), 50);
  });

  it("one byte over 1 MiB: 413 with a JSON-RPC error, not a tool call", async () => {
    await expectTooLarge(await postMcp(paddedCall(51, MAX_MCP_BODY_BYTES + 1), { token }));
  });

  it("over the limit without a Content-Length (streamed): 413 all the same", async () => {
    await expectTooLarge(await chunkedPost(paddedCall(52, MAX_MCP_BODY_BYTES + 1)));
  });

  it("a streamed body of exactly 1 MiB is served as usual", async () => {
    await expectPreview(await chunkedPost(paddedCall(53, MAX_MCP_BODY_BYTES)), 53);
  });

  it("the limit counts bytes, not characters: 600k two-byte characters are refused", async () => {
    const call = rpc(54, "tools/call", { name: "preview_order", arguments: { seed: 5 }, _meta: { note: "é".repeat(600_000) } });
    const body = JSON.stringify(call);
    expect(body.length).toBeLessThan(MAX_MCP_BODY_BYTES);
    expect(new TextEncoder().encode(body).byteLength).toBeGreaterThan(MAX_MCP_BODY_BYTES);
    await expectTooLarge(await postMcp(body, { token }));
  });

  it("an oversized body is refused before the tool runs: a send_orders call sends nothing", async () => {
    const seed = randomSeed();
    const call = JSON.stringify(rpc(55, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }));
    await expectTooLarge(await postMcp(call + " ".repeat(MAX_MCP_BODY_BYTES), { token }));
    // Replaying the same seed now creates the order (201), so the refused call did not.
    const replay = await json(await postMcp(rpc(56, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }));
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });
});
