import { describe, expect, it } from "vitest";
import {
  EVERYTHING,
  installMcpServerExtension,
  type McpServerExtension,
  serverExtension,
} from "../../src/mcp/server-extension";
import { parsed } from "../helpers/config";

// The extension point a development entry (conformance/worker.ts) adds to every MCP
// server through. Installing is not enough: the configuration must switch it
// on, and it refuses the switch in production (test/config/config.test.ts).

const probe: McpServerExtension = { options: {}, needs: EVERYTHING, register: () => undefined };
installMcpServerExtension(probe);

describe("serverExtension", () => {
  it("an installed extension stays off until CONFORMANCE_FIXTURES turns it on", () => {
    expect(serverExtension(parsed({ ENVIRONMENT: "development" }))).toBeUndefined();
    expect(serverExtension(parsed({ ENVIRONMENT: "development", CONFORMANCE_FIXTURES: "on" }))).toBe(probe);
  });

  it("refuses a second, different extension, which would silently replace the first", () => {
    expect(() => installMcpServerExtension({ ...probe })).toThrow("an MCP server extension is already installed");
    expect(() => installMcpServerExtension(probe)).not.toThrow();
  });
});
