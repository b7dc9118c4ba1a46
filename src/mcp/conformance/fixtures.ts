import type { CacheHint, McpServer, McpServerOptions } from "@modelcontextprotocol/server";
import { registerContentTools } from "./content.tools";
import { registerInputTools } from "./input.tools";
import { requestStates } from "./request-state";
import { registerResourcesAndPrompts } from "./resources-prompts";

/**
 * Fixtures for the official MCP conformance suite (`npm run conformance`).
 *
 * The suite's scenarios call tools, resources and prompts by fixed names
 * (test_simple_text, test://static-text, test_simple_prompt, ...) and count a
 * missing one as a failure, so a development server started with
 * CONFORMANCE_FIXTURES=on registers them beside the real toolsets; the
 * configuration refuses that switch in production. They are protocol
 * fixtures, not account tools: they read and write no account data, which is
 * why they register on the server directly rather than through the account
 * seam.
 */

const FIXTURE_LIST_CACHE: CacheHint = { ttlMs: 60_000, cacheScope: "private" };

/**
 * Server options the fixtures need on top of ours. The lists still never
 * change at run time, so no `listChanged` is promised; resources can be
 * subscribed to because the 2025 scenarios ask.
 */
export function conformanceServerOptions(): Pick<McpServerOptions, "capabilities" | "cacheHints" | "requestState"> {
  return {
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
    },
    cacheHints: { "prompts/list": FIXTURE_LIST_CACHE, "resources/templates/list": FIXTURE_LIST_CACHE },
    // A tampered or expired state is refused with -32602 before any handler runs.
    requestState: { verify: (state, ctx) => requestStates().verify(state, ctx) },
  };
}

export function registerConformanceFixtures(server: McpServer): void {
  registerContentTools(server);
  registerInputTools(server);
  registerResourcesAndPrompts(server);
}
