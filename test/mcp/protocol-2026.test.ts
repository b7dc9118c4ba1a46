import { describe, expect, it } from "vitest";
import { ENVELOPE_2026, jsonAnswer, modernHeaders, modernRpc, postMcp, rpc, sseMessages } from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";

// Protocol 2026-07-28 on the wire: stateless, every request carrying its
// `_meta` envelope and the headers mirrored from its body.

const token = ACME_TOKEN;

function modern(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  name?: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  return postMcp(modernRpc(id, method, params), {
    token,
    headers: { ...modernHeaders(method, name), ...extraHeaders },
  });
}

describe("server/discover", () => {
  it("offers 2026-07-28 with our capabilities, identity, instructions and a caching hint", async () => {
    const response = await modern(1, "server/discover");
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = await jsonAnswer(response);
    expect(body.result).toMatchObject({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      resultType: "complete",
      ttlMs: 10_000,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "order-ops-edge", version: "0.1.0" } },
    });
    expect(body.result?.instructions).toContain("check_target");
  });

  it("tolerates a 2025-11-25 header on a request whose body carries the 2026-07-28 envelope", async () => {
    const response = await modern(2, "server/discover", {}, undefined, { "mcp-protocol-version": "2025-11-25" });
    expect(response.status).toBe(200);
    expect((await jsonAnswer(response)).result?.supportedVersions).toEqual(["2026-07-28"]);
  });

  it("still refuses a 2026 header whose body names another revision (-32020)", async () => {
    const response = await postMcp(
      rpc(3, "server/discover", {
        _meta: { ...ENVELOPE_2026, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
      }),
      {
        token,
        headers: modernHeaders("server/discover"),
      },
    );
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32020);
  });
});

describe("lists carry caching hints", () => {
  it.each([
    ["tools/list", "tools"],
    ["resources/list", "resources"],
  ])(
    "%s: a short ttlMs (the list depends on the grant's scopes, which a step-up widens) and cacheScope",
    async (method, key) => {
      const body = await jsonAnswer(await modern(10, method));
      expect(body.result?.ttlMs).toBe(10_000);
      expect(body.result?.cacheScope).toBe("private");
      expect(Array.isArray(body.result?.[key])).toBe(true);
    },
  );

  it("the seed catalog may be reused for five minutes; the batch history is never cached", async () => {
    const catalog = await jsonAnswer(
      await modern(11, "resources/read", { uri: "synthetic://catalog" }, "synthetic://catalog"),
    );
    expect(catalog.result).toMatchObject({ ttlMs: 300_000, cacheScope: "private" });
    const batches = await jsonAnswer(
      await modern(12, "resources/read", { uri: "synthetic://batches" }, "synthetic://batches"),
    );
    expect(batches.result).toMatchObject({ ttlMs: 0 });
  });
});

describe("tools/call at 2026-07-28", () => {
  it("a plain call answers JSON with the structured result", async () => {
    const body = await jsonAnswer(
      await modern(20, "tools/call", { name: "preview_order", arguments: { seed: 5 } }, "preview_order"),
    );
    expect(body.id).toBe(20);
    expect(body.result?.structuredContent).toMatchObject({ mode: "seeded", seed: 5 });
    expect(body.result?.resultType).toBe("complete");
  });

  it("a call with a progressToken streams progress before the result", async () => {
    const seed = freshSeed();
    const response = await modern(
      21,
      "tools/call",
      { name: "send_orders", arguments: { count: 5, seed }, _meta: { progressToken: "m-21" } },
      "send_orders",
    );
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await response.text());
    expect(messages.filter((m) => m.method === "notifications/progress").map((m) => m.params?.progress)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect(messages.at(-1)?.result?.structuredContent).toMatchObject({ seed, accepted: 5 });
  });

  it("bad params are one readable line with -32602, not a schema dump", async () => {
    const body = await jsonAnswer(await modern(22, "tools/call", { arguments: null }));
    expect(body.error).toEqual({
      code: -32602,
      message:
        "Invalid params for tools/call: name is required; arguments: must be an object of named arguments (or left out)",
    });
    expect(body.id).toBe(22);
  });

  it("an unknown tool is -32602 naming it", async () => {
    const body = await jsonAnswer(
      await modern(23, "tools/call", { name: "send_orders_to", arguments: {} }, "send_orders_to"),
    );
    expect(body.error).toEqual({ code: -32602, message: "Tool send_orders_to not found" });
  });
});

describe("what 2026-07-28 refuses", () => {
  it.each(["initialize", "ping", "logging/setLevel", "orders/teleport"])(
    "%s: 404 with -32601, echoing the id",
    async (method) => {
      const response = await modern(30, method);
      expect(response.status).toBe(404);
      expect(await jsonAnswer(response)).toMatchObject({ id: 30, error: { code: -32601 } });
    },
  );

  it("a 2026 header without the envelope: 400, -32602", async () => {
    const response = await postMcp(rpc(31, "tools/list"), { token, headers: modernHeaders("tools/list") });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32602);
  });

  it("a missing Mcp-Method header: 400, -32020", async () => {
    const response = await postMcp(modernRpc(32, "tools/list"), {
      token,
      headers: { "mcp-protocol-version": "2026-07-28" },
    });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32020);
  });

  it("an Mcp-Name that differs from the tool called: 400, -32020, and the tool does not run", async () => {
    const response = await modern(33, "tools/call", { name: "send_orders", arguments: { count: 1 } }, "check_target");
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32020);
  });

  it("a revision the server does not speak: 400, -32022 listing the supported ones", async () => {
    const envelope = { ...ENVELOPE_2026, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const response = await postMcp(rpc(34, "tools/list", { _meta: envelope }), {
      token,
      headers: { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
    });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2099-01-01" },
    });
  });

  it("a batch of 2026 requests: 400, -32600", async () => {
    const response = await postMcp([modernRpc(35, "tools/list")], { token, headers: modernHeaders("tools/list") });
    expect(response.status).toBe(400);
    expect((await jsonAnswer(response)).error?.code).toBe(-32600);
  });
});
