import { describe, expect, it } from "vitest";
import { refuseMalformed } from "../../src/mcp/transport/jsonrpc";

// The checks made before the SDK sees a message, without HTTP: each kind of
// message goes on, near misses are refused, whatever the order of their keys.

describe("refuseMalformed", () => {
  it.each([
    ["a request", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["a notification", { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["a result", { jsonrpc: "2.0", id: "s-1", result: {} }],
    ["an error", { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } }],
    [
      "a batch of all four",
      [
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { result: {}, id: "s-1", jsonrpc: "2.0" },
        { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } },
      ],
    ],
  ])("lets %s through to the SDK", (_label, message) => {
    expect(refuseMalformed(message, null)).toBeUndefined();
  });

  it.each([
    ["an id that is an object", { jsonrpc: "2.0", id: {}, method: "tools/list" }],
    ["both a method and a result", { jsonrpc: "2.0", id: 1, method: "tools/list", result: {} }],
    ["no jsonrpc version", { id: 1, method: "tools/list" }],
    ["a bare string", "tools/list"],
  ])("refuses a message with %s as -32600", async (_label, message) => {
    const refused = refuseMalformed(message, null);
    expect(refused?.status).toBe(400);
    expect(((await refused?.json()) as { error: { code: number } } | undefined)?.error.code).toBe(-32600);
  });

  it("checks the params of every request in a batch, not only of a lone request", async () => {
    const refused = refuseMalformed([{ jsonrpc: "2.0", id: 1, method: "resources/read", params: {} }], "2025-03-26");
    expect(refused?.status).toBe(200);
    expect(await refused?.json()).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params for resources/read: uri is required" } },
    ]);
  });
});
