import { describe, expect, it } from "vitest";
import { MAX_MCP_BODY_BYTES } from "../../src/mcp/route";
import { MCP_URL, workerFetch } from "../helpers/mcp-client";
import { jsonAnswer, mcpHeaders, postMcp, rpc } from "../helpers/mcp-raw";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";

// /mcp refuses a body over 1 MiB with 413 before any tool runs, whether or
// not it declares its length.

const token = ACME_TOKEN;

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
        for (let offset = 0; offset < bytes.byteLength; offset += 65_536)
          controller.enqueue(bytes.slice(offset, offset + 65_536));
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
    const body = await jsonAnswer(response);
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
    const call = rpc(54, "tools/call", {
      name: "preview_order",
      arguments: { seed: 5 },
      _meta: { note: "é".repeat(600_000) },
    });
    const body = JSON.stringify(call);
    expect(body.length).toBeLessThan(MAX_MCP_BODY_BYTES);
    expect(new TextEncoder().encode(body).byteLength).toBeGreaterThan(MAX_MCP_BODY_BYTES);
    await expectTooLarge(await postMcp(body, { token }));
  });

  it("an oversized body is refused before the tool runs: a send_orders call sends nothing", async () => {
    const seed = freshSeed();
    const call = JSON.stringify(rpc(55, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }));
    await expectTooLarge(await postMcp(call + " ".repeat(MAX_MCP_BODY_BYTES), { token }));
    // Replaying the same seed now creates the order (201), so the refused call did not.
    const replay = await jsonAnswer(
      await postMcp(rpc(56, "tools/call", { name: "send_orders", arguments: { count: 1, seed } }), { token }),
    );
    expect(replay.result?.structuredContent).toMatchObject({ seed, status_counts: { "201": 1 } });
  });
});
