import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator as ModernValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import app from "../../conformance/worker";
import { FIXTURE_MARKERS } from "../../scripts/lib/bundle-contents.ts";
import { connectClient, MCP_URL } from "../helpers/mcp-client";
import { ACME_TOKEN } from "../helpers/tokens";
import { structuredOf, type ToolCallResult, toolErrorOf } from "../helpers/tool-results";

// The conformance suite's fixtures (conformance/), served by the development
// entry conformance/worker.ts: off unless CONFORMANCE_FIXTURES=on, which only
// a development server accepts.

const fixtureEnv = { ...env, CONFORMANCE_FIXTURES: "on" };
const fixtureFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  await app.fetch(new Request(input, init), fixtureEnv, createExecutionContext());
const requestInit = { headers: { authorization: `Bearer ${ACME_TOKEN}` } };

const textOf = (result: unknown): string => ((result as ToolCallResult).content as { text?: string }[])[0]?.text ?? "";

describe("off by default", () => {
  it("the test environment lists no fixture", async () => {
    const client = await connectClient(ACME_TOKEN, "fixtures-off");
    try {
      expect((await client.listTools()).tools.filter((t) => t.name.startsWith("test_"))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("the development entry lists none either while the switch is off", async () => {
    const client = new Client({ name: "fixtures-installed-off", version: "1.0.0" });
    const offFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
      await app.fetch(new Request(input, init), env, createExecutionContext());
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: offFetch, requestInit }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("check_target");
      expect(tools.filter((name) => name.startsWith("test_"))).toEqual([]);
      expect((await client.listResources()).resources.filter((r) => r.uri.startsWith("test://"))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("with CONFORMANCE_FIXTURES=on", () => {
  it("2026-07-28: a tool that needs input gets it in a retried call (input_required), no server state needed", async () => {
    const client = new ModernClient(
      { name: "fixtures-2026", version: "1.0.0" },
      {
        capabilities: { elicitation: {} },
        jsonSchemaValidator: new ModernValidator(),
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada" } }));
    await client.connect(new ModernTransport(new URL(MCP_URL), { fetch: fixtureFetch, requestInit }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["check_target", "test_simple_text", "test_input_required_result_elicitation"]),
      );
      expect(textOf(await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} }))).toBe(
        "Hello, Ada!",
      );
      // The real tools behave as ever beside the fixtures.
      expect(
        structuredOf<{ reachable: boolean }>(await client.callTool({ name: "check_target", arguments: {} })).reachable,
      ).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("2025-11-25: asking the client is refused at once, because a stateless server cannot receive its answer", async () => {
    const client = new Client({ name: "fixtures-2025", version: "1.0.0" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "never delivered" },
      model: "test",
    }));
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: fixtureFetch, requestInit }));
    try {
      const error = toolErrorOf(await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } }));
      expect(error).toContain("per-request legacy serving cannot receive server-to-client requests");
      expect(textOf(await client.callTool({ name: "test_simple_text", arguments: {} }))).toBe(
        "This is a simple text response for testing.",
      );
    } finally {
      await client.close();
    }
  });

  it("registers every name deploy:check looks for in the bundle, so that check cannot go stale", async () => {
    const client = new Client({ name: "fixtures-markers", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: fixtureFetch, requestInit }));
    try {
      const names = [
        ...(await client.listTools()).tools.map((t) => t.name),
        ...(await client.listResources()).resources.map((r) => r.uri),
        ...(await client.listPrompts()).prompts.map((p) => p.name),
      ];
      expect(names).toEqual(expect.arrayContaining([...FIXTURE_MARKERS]));
    } finally {
      await client.close();
    }
  });

  it("a production configuration refuses the switch", async () => {
    const response = await app.fetch(
      new Request("https://ops.example.com/api/health"),
      {
        ...env,
        ENVIRONMENT: "production",
        PUBLIC_BASE_URL: "https://ops.example.com",
        CONFORMANCE_FIXTURES: "on",
        MCP_TOKENS: "",
        APPROVER_TOKENS: "",
      },
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toContain(
      "CONFORMANCE_FIXTURES adds the MCP conformance suite's test tools and is for development only",
    );
  });
});
