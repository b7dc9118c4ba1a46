import type { McpServer, McpServerOptions } from "@modelcontextprotocol/server";
import type { Config } from "../config/config";
import type { RequestNeeds } from "./request-needs";
import type { TaskSource } from "./task-methods";

export { EVERYTHING, type RequestNeeds } from "./request-needs";
export type { TaskSource } from "./task-methods";
export { declaresTasks, TASK_POLL_INTERVAL_MS, TASKS_EXTENSION_ID } from "./tools/task-handles";

/**
 * What a development-only Worker entry may add to every MCP server built here:
 * the conformance suite's fixtures (conformance/worker.ts). The product's
 * entry installs nothing, so none of it is in the deployed bundle, and an
 * installed extension is used only while CONFORMANCE_FIXTURES is on, which
 * the configuration refuses in production.
 */
export interface McpServerExtension {
  /** Spread over our server options; its cacheHints are added to ours. */
  readonly options: Pick<McpServerOptions, "capabilities" | "cacheHints" | "requestState">;
  /** What every request reaches while it is on, instead of only what the request names. */
  readonly needs: RequestNeeds;
  /** Registers on the raw server, after the account's toolsets. */
  register(server: McpServer): void;
  /** Tasks of its own, which tasks/get, tasks/update and tasks/cancel ask before the account's (task-methods.ts). */
  readonly tasks?: TaskSource;
}

let installed: McpServerExtension | undefined;
let warnedMissing = false;

/** Called once, at the development entry's module load, before any request. */
export function installMcpServerExtension(extension: McpServerExtension): void {
  if (installed !== undefined && installed !== extension)
    throw new Error("an MCP server extension is already installed");
  installed = extension;
}

/** The installed extension, while the configuration switches it on. */
export function serverExtension(config: Config): McpServerExtension | undefined {
  if (!config.conformanceFixtures) return undefined;
  if (installed === undefined && !warnedMissing) {
    // The switch alone adds nothing: the fixtures live only in the development entry.
    warnedMissing = true;
    console.warn(
      "CONFORMANCE_FIXTURES is on, but this Worker entry installs no fixtures; `npm run conformance` starts the one that does (conformance/worker.ts)",
    );
  }
  return installed;
}
