import { exports } from "cloudflare:workers";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator as ModernValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";

export const MCP_URL = "http://localhost/mcp";

/** The Worker under test, called in-process as if over HTTP. */
export const workerFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  exports.default.fetch(new Request(input, init));

/**
 * A real SDK client speaking Streamable HTTP to the Worker: the v1 SDK
 * (`@modelcontextprotocol/sdk`), which negotiates 2025-11-25 with `initialize`,
 * as most clients shipping today do.
 */
export async function connectClient(token: string, name = "vitest"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * The v2 client (`@modelcontextprotocol/client`) pinned to protocol 2026-07-28:
 * `server/discover`, then every request stateless with its `_meta` envelope.
 * Pinned, so a server that only spoke 2025 would fail to connect instead of
 * being quietly served by the fallback.
 */
export async function connectModernClient(token: string, name = "vitest-2026"): Promise<ModernClient> {
  const client = new ModernClient(
    { name, version: "1.0.0" },
    { jsonSchemaValidator: new ModernValidator(), versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const transport = new ModernTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** What every test drives, whichever SDK generation is on the other end. */
export interface McpTestClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: unknown[] }>;
  listResources(): Promise<{ resources: { uri: string; mimeType?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string; name: string; mimeType?: string }[] }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: ReadonlyArray<{ mimeType?: string } & ({ text: string } | { blob: string })> }>;
  listPrompts(): Promise<{
    prompts: ReadonlyArray<{
      name: string;
      title?: string;
      description?: string;
      arguments?: ReadonlyArray<{ name: string; description?: string; required?: boolean }>;
    }>;
  }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{
    description?: string;
    messages: ReadonlyArray<{ role: string; content: { type: string; text?: string } }>;
  }>;
  getServerCapabilities(): { prompts?: { listChanged?: boolean } } | undefined;
  close(): Promise<void>;
}

export interface ClientGeneration {
  readonly label: string;
  readonly protocol: string;
  connect(token: string, name?: string): Promise<McpTestClient>;
}

/** Both generations, for tests that must hold whichever one a client ships. */
export const CLIENT_GENERATIONS: readonly ClientGeneration[] = [
  { label: "v1 SDK client", protocol: "2025-11-25", connect: connectClient },
  { label: "v2 SDK client", protocol: "2026-07-28", connect: connectModernClient },
];
