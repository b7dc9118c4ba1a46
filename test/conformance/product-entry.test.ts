import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, it } from "vitest";
import app from "../../src/index";
import { MCP_URL } from "../helpers/mcp-client";
import { ACME_TOKEN } from "../helpers/tokens";

// The fixtures come only with the development entry (conformance/worker.ts):
// the product's entry, the one wrangler.toml deploys, has none to add even
// when the switch is on.

it("the product's entry lists no fixture even with CONFORMANCE_FIXTURES=on", async () => {
  const switchedOn = { ...env, CONFORMANCE_FIXTURES: "on" };
  const client = new Client({ name: "product-entry", version: "1.0.0" });
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    await app.fetch(new Request(input, init), switchedOn, createExecutionContext());
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), {
      fetch,
      requestInit: { headers: { authorization: `Bearer ${ACME_TOKEN}` } },
    }),
  );
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("check_target");
    expect(tools.filter((name) => name.startsWith("test_"))).toEqual([]);
    // The product has prompts of its own; none of them is a fixture, and nothing the fixtures add is declared.
    expect((await client.listPrompts()).prompts.filter((p) => p.name.startsWith("test_"))).toEqual([]);
    expect(client.getServerCapabilities()?.completions).toBeUndefined();
    expect(client.getServerCapabilities()?.logging).toBeUndefined();
  } finally {
    await client.close();
  }
});
