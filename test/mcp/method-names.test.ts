import { describe, expect, it } from "vitest";
import { type JsonRpcMessage, jsonAnswer, modernHeaders, modernRpc, postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// A method name is input: one that names a member of Object.prototype must be
// answered like any other unknown method, at every revision and in a batch,
// and a known method without its params gets one readable -32602.

const token = ACME_TOKEN;

/** Every own property name of Object.prototype, __proto__ included. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe("method names drawn from Object.prototype", () => {
  it("the list holds the names that broke a lookup", () => {
    expect(PROTOTYPE_NAMES).toEqual(
      expect.arrayContaining(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]),
    );
  });

  it.each(["2025-03-26", "2025-06-18", "2025-11-25"])(
    "at %s each is -32601 Method not found, echoing the id",
    async (version) => {
      for (const method of PROTOTYPE_NAMES) {
        const response = await postMcp(rpc(7, method), { token, headers: { "mcp-protocol-version": version } });
        expect(response.status, method).toBeLessThan(500);
        const body = await jsonAnswer(response);
        expect(body.id, method).toBe(7);
        expect(body.error?.code, method).toBe(-32601);
      }
    },
  );

  it("at 2026-07-28 each is -32601 Method not found", async () => {
    for (const method of PROTOTYPE_NAMES) {
      const response = await postMcp(modernRpc(8, method), { token, headers: modernHeaders(method) });
      expect(response.status, method).toBeLessThan(500);
      expect((await jsonAnswer(response)).error?.code, method).toBe(-32601);
    }
  });

  it("in a 2025-03-26 batch, each gets its own -32601 and the other requests are answered", async () => {
    const batch = [...PROTOTYPE_NAMES.map((method, i) => rpc(100 + i, method)), rpc(99, "ping")];
    const response = await postMcp(batch, { token });
    expect(response.status).toBe(200);
    const answers = (await response.json()) as JsonRpcMessage[];
    expect(answers.map((a) => a.id)).toEqual(batch.map((request) => request.id));
    expect(answers.slice(0, -1).map((a) => a.error?.code)).toEqual(PROTOTYPE_NAMES.map(() => -32601));
    expect(answers.at(-1)).toEqual({ jsonrpc: "2.0", id: 99, result: {} });
  });

  it("as a tool name, each is the usual unknown-tool answer", async () => {
    for (const name of PROTOTYPE_NAMES) {
      const response = await postMcp(rpc(9, "tools/call", { name, arguments: {} }), { token });
      expect(response.status, name).toBe(200);
      expect((await jsonAnswer(response)).error, name).toEqual({ code: -32602, message: `Tool ${name} not found` });
    }
  });
});

describe("initialize without what it needs", () => {
  it("no params at all: -32602 with one sentence", async () => {
    const response = await postMcp(rpc(10, "initialize"), { token });
    expect(response.status).toBe(200);
    expect(await jsonAnswer(response)).toEqual({
      jsonrpc: "2.0",
      id: 10,
      error: { code: -32602, message: "Invalid params for initialize: params is required" },
    });
  });

  it("params without a protocol version or client info: -32602 naming each, on one line", async () => {
    const body = await jsonAnswer(await postMcp(rpc(11, "initialize", { capabilities: {} }), { token }));
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toBe(
      "Invalid params for initialize: protocolVersion is required; clientInfo is required",
    );
  });
});
