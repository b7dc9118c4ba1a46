/**
 * Fixtures for the official MCP conformance suite (`npm run conformance`).
 *
 * The suite's scenarios call tools, resources and prompts by fixed names
 * (test_simple_text, test://static-text, test_simple_prompt, ...) and count a
 * missing one as a failure, so the development entry (worker.ts) installs them
 * beside the real toolsets, and they appear while CONFORMANCE_FIXTURES=on; the
 * configuration refuses that switch in production. They are protocol
 * fixtures, not account tools: they read and write no account data, which is
 * why they register on the server directly rather than through the account
 * seam.
 */
import type { CacheHint } from "@modelcontextprotocol/server";
import { EVERYTHING, type McpServerExtension, TASKS_EXTENSION_ID } from "../src/mcp/server-extension";
import { registerContentTools } from "./content.tools";
import { registerInputTools } from "./input.tools";
import { requestStates } from "./request-state";
import { registerResourcesAndPrompts } from "./resources-prompts";
import { fixtureTasks, registerTaskTools } from "./tasks.tools";

const FIXTURE_LIST_CACHE: CacheHint = { ttlMs: 60_000, cacheScope: "private" };

export const conformanceFixtures: McpServerExtension = {
  // The lists still never change at run time, so no `listChanged` is
  // promised; resources can be subscribed to because the 2025 scenarios ask.
  options: {
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
      extensions: { [TASKS_EXTENSION_ID]: {} },
    },
    cacheHints: { "prompts/list": FIXTURE_LIST_CACHE, "resources/templates/list": FIXTURE_LIST_CACHE },
    // A tampered or expired state is refused with -32602 before any handler runs.
    requestState: { verify: (state, ctx) => requestStates().verify(state, ctx) },
  },
  // The fixtures' tools log and ask the client things mid-call; they see the whole server, as before.
  needs: EVERYTHING,
  register(server) {
    registerContentTools(server);
    registerInputTools(server);
    registerResourcesAndPrompts(server);
    registerTaskTools(server);
  },
  tasks: fixtureTasks,
};
