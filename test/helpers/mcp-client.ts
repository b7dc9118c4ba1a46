import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker-provider.js";
import { exports } from "cloudflare:workers";

export const ACME_TOKEN = "acme-dev-token";
export const GLOBEX_TOKEN = "globex-dev-token";
export const MCP_URL = "http://localhost/mcp";

/** The Worker under test, called in-process as if over HTTP. */
export const workerFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  exports.default.fetch(new Request(input, init));

/** A real SDK client speaking Streamable HTTP to the Worker. */
export async function connectClient(token: string, name = "vitest"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}
