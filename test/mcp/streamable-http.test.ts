import { describe, expect, it } from "vitest";
import { version as released } from "../../package.json";
import { initializeRequest, jsonAnswer, postMcp, rpc, sseMessages } from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";

// Streamable HTTP as the Worker speaks it: stateless, JSON for plain calls,
// SSE only when progress must flow before the result.

const token = ACME_TOKEN;

describe("initialize", () => {
  it.each(["2025-03-26", "2025-06-18", "2025-11-25"])("protocol version %s is accepted and echoed", async (version) => {
    const response = await postMcp(initializeRequest(1, version), { token });
    expect(response.status).toBe(200);
    const body = await jsonAnswer(response);
    expect(body.id).toBe(1);
    expect(body.error).toBeUndefined();
    expect(body.result?.protocolVersion).toBe(version);
    // The version a client sees is the one package.json and CHANGELOG.md release.
    expect(body.result?.serverInfo).toEqual({ name: "order-ops-edge", version: released });
    expect(body.result?.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(body.result?.instructions).toContain("check_target");
  });

  it.each(["2020-01-01", "2024-11-05"])(
    "an initialize at %s is offered 2025-11-25, the newest 2025 revision",
    async (version) => {
      const body = await jsonAnswer(await postMcp(initializeRequest(2, version), { token }));
      expect(body.result?.protocolVersion).toBe("2025-11-25");
    },
  );

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
    const body = await jsonAnswer(response);
    expect(body.id).toBe(10);
    expect(body.result?.structuredContent).toMatchObject({ reachable: true, skus: 8, customers: 5 });
  });

  it("a plain tools/list gets JSON", async () => {
    const body = await jsonAnswer(await postMcp(rpc(11, "tools/list"), { token }));
    expect((body.result?.tools as { name: string }[] | undefined)?.map((t) => t.name)).toContain("send_orders");
  });

  it("a client that accepts only application/json still works", async () => {
    const response = await postMcp(rpc(12, "tools/call", { name: "preview_order", arguments: { seed: 5 } }), {
      token,
      accept: "application/json",
    });
    expect(response.status).toBe(200);
    const body = await jsonAnswer(response);
    expect(body.result?.structuredContent).toMatchObject({ mode: "seeded", seed: 5 });
  });

  it("a JSON-only client that asks for progress still gets JSON (and the result)", async () => {
    const seed = freshSeed();
    const response = await postMcp(
      rpc(13, "tools/call", {
        name: "send_orders",
        arguments: { count: 2, seed },
        _meta: { progressToken: "json-only" },
      }),
      { token, accept: "application/json" },
    );
    const body = await jsonAnswer(response);
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

describe("progress over SSE", () => {
  it("a tools/call with a progressToken streams notifications/progress before the result", async () => {
    const seed = freshSeed();
    const response = await postMcp(
      rpc(30, "tools/call", { name: "send_orders", arguments: { count: 5, seed }, _meta: { progressToken: "p-30" } }),
      { token },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await response.text());

    const progress = messages.filter((m) => m.method === "notifications/progress");
    expect(progress.map((m) => m.params)).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({
        progressToken: "p-30",
        progress: n,
        total: 5,
        message: `sent ${n} of 5 orders`,
      })),
    );

    const last = messages.at(-1);
    expect(last?.id).toBe(30);
    expect(last?.result?.structuredContent).toMatchObject({
      seed,
      requested: 5,
      accepted: 5,
      status_counts: { "201": 5 },
    });
    // Every progress event comes before the result, and nothing else is in the stream.
    expect(messages).toHaveLength(progress.length + 1);
    expect(messages.findIndex((m) => m.id === 30)).toBe(messages.length - 1);
  });

  it("progress for a large batch is throttled to about 20 events, ending at total", async () => {
    const response = await postMcp(
      rpc(31, "tools/call", {
        name: "send_orders",
        arguments: { count: 100, seed: freshSeed() },
        _meta: { progressToken: 31 },
      }),
      { token },
    );
    const messages = sseMessages(await response.text());
    const progress = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params?.progress);
    expect(progress).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 5));
    expect(messages.at(-1)?.result?.structuredContent).toMatchObject({ requested: 100, accepted: 100 });
  });
});
