import { describe, expect, it } from "vitest";
import { type JsonRpcMessage, jsonAnswer, postMcp, rpc } from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";

// JSON-RPC over /mcp: batches where the protocol version has them, and every
// malformed request answered with one readable JSON-RPC error, never a 500.

const token = ACME_TOKEN;

describe("JSON-RPC batches (only protocol 2025-03-26 has them)", () => {
  it("without a protocol header (a 2025-03-26 client) a batch gets one JSON array answer in request order", async () => {
    const response = await postMcp([rpc(20, "tools/list"), rpc(21, "resources/list")], { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const answers = (await response.json()) as JsonRpcMessage[];
    expect(answers.map((a) => a.id)).toEqual([20, 21]);
  });

  it("a batch of one at 2025-03-26 is still answered with an array", async () => {
    const response = await postMcp([rpc(22, "tools/list")], {
      token,
      headers: { "mcp-protocol-version": "2025-03-26" },
    });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as JsonRpcMessage[];
    expect(Array.isArray(answers)).toBe(true);
    expect(answers.map((a) => a.id)).toEqual([22]);
  });

  it.each(["2025-06-18", "2025-11-25"])("at %s a batch is refused with -32600 and nothing runs", async (version) => {
    const seed = freshSeed();
    const response = await postMcp([rpc(23, "tools/call", { name: "send_orders", arguments: { count: 1, seed } })], {
      token,
      headers: { "mcp-protocol-version": version },
    });
    expect(response.status).toBe(400);
    expect(await jsonAnswer(response)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: `Invalid Request: protocol ${version} has no JSON-RPC batches (2025-06-18 removed them); send one message per request`,
      },
    });
    const replay = await jsonAnswer(
      await postMcp(rpc(24, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }),
    );
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });

  it("an empty batch is refused with -32600", async () => {
    const response = await postMcp([], { token });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error).toEqual({
      code: -32600,
      message: "Invalid Request: an empty JSON-RPC batch; send at least one message",
    });
  });

  it("a batch with a request whose params are malformed: that request gets the one-line -32602, and nothing in the batch runs", async () => {
    const seed = freshSeed();
    const response = await postMcp(
      [
        rpc(26, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }),
        rpc(27, "tools/call", { name: "check_target", arguments: null }),
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ],
      { token },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      {
        jsonrpc: "2.0",
        id: 26,
        error: {
          code: -32000,
          message:
            "Not run: request 27 in the same batch has invalid params, and a batch runs only when every request in it is valid",
        },
      },
      {
        jsonrpc: "2.0",
        id: 27,
        error: {
          code: -32602,
          message: "Invalid params for tools/call: arguments: must be an object of named arguments (or left out)",
        },
      },
    ]);
    const replay = await jsonAnswer(
      await postMcp(rpc(28, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }),
    );
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });

  it("a batch with an element that is not a message is refused with -32600", async () => {
    const response = await postMcp([rpc(25, "tools/list"), { hello: "world" }], { token });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32600);
  });
});

describe("malformed requests", () => {
  it("a body that is not JSON: 400 JSON-RPC parse error, not 500", async () => {
    const response = await postMcp("{not json", { token });
    expect(response.status).toBe(400);
    const body = await jsonAnswer(response);
    expect(body.error?.code).toBe(-32700);
    expect(body.id).toBeNull();
  });

  it("a JSON body that is not JSON-RPC: 400 with -32600 (invalid request), not a parse error", async () => {
    const response = await postMcp({ hello: "world" }, { token });
    expect(response.status).toBe(400);
    const body = await jsonAnswer(response);
    expect(body.error?.code).toBe(-32600);
    expect(body.error?.message).toMatch(/^Invalid Request: the body is JSON but not a JSON-RPC 2\.0 message/);
  });

  it("an empty body: 400 parse error, not 500", async () => {
    const response = await postMcp("", { token });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32700);
  });

  it.each([
    [
      "arguments: null",
      { name: "check_target", arguments: null },
      "Invalid params for tools/call: arguments: must be an object of named arguments (or left out)",
    ],
    ["no name", { arguments: {} }, "Invalid params for tools/call: name is required"],
    ["no params at all", undefined, "Invalid params for tools/call: params is required"],
  ])("tools/call with %s: -32602 with one readable line, echoing the id", async (_label, params, message) => {
    const response = await postMcp(rpc(43, "tools/call", params), { token });
    expect(response.status).toBe(200);
    expect(await jsonAnswer(response)).toEqual({ jsonrpc: "2.0", id: 43, error: { code: -32602, message } });
  });

  it("resources/read without a uri: -32602 naming it", async () => {
    const body = await jsonAnswer(await postMcp(rpc(44, "resources/read", {}), { token }));
    expect(body.error).toEqual({ code: -32602, message: "Invalid params for resources/read: uri is required" });
  });

  it("an unsupported mcp-protocol-version header: 400", async () => {
    const response = await postMcp(rpc(40, "tools/list"), { token, headers: { "mcp-protocol-version": "1999-01-01" } });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.message).toContain("Unsupported protocol version");
  });

  it("a body sent as text/plain: 415", async () => {
    const response = await postMcp(JSON.stringify(rpc(45, "ping")), {
      token,
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(415);
  });

  it("an unknown method: JSON-RPC method-not-found", async () => {
    const body = await jsonAnswer(await postMcp(rpc(41, "orders/teleport"), { token }));
    expect(body.error?.code).toBe(-32601);
  });

  it("an unknown tool: -32602 naming the tool, not a crash", async () => {
    const response = await postMcp(
      rpc(42, "tools/call", { name: "send_orders_to", arguments: { url: "https://evil.example" } }),
      { token },
    );
    expect(response.status).toBe(200);
    expect((await jsonAnswer(response)).error).toEqual({ code: -32602, message: "Tool send_orders_to not found" });
  });
});
