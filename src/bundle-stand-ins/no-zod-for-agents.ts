/**
 * Stands in for the bare `zod` specifier in the deployed bundle (see [alias] in
 * wrangler.toml). Only `agents` imports zod by that name, and only to turn a
 * remote MCP server's tool schemas into zod inside its MCP client, which this
 * Worker never uses (no-mcp-client.ts). Our code and the MCP SDK import
 * `zod/v4`, the same module under its other name, so they get the real zod on
 * the first request that needs it. Without this, every cold start would build
 * zod (about 10 ms of CPU) for the Agent class alone, before /health could answer.
 */
export const z: unknown = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(
        `zod.${String(property)} was used through the bare "zod" import, which this Worker's bundle leaves out (wrangler.toml [alias]); import from "zod/v4"`,
      );
    },
  },
);
