import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** An SDK client connected the way Claude Code connects: Streamable HTTP plus a bearer header. */
export async function connect(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "order-ops-edge-script", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolOutcome {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content[0] as { type?: string; text?: string } | undefined;
  return {
    isError: result.isError === true,
    text: first?.type === "text" ? (first.text ?? "") : "",
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}
