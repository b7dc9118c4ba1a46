import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_TOOLS } from "../../src/mcp/server";
import { type ListedTool, openObjects, propertyNames } from "../helpers/listed-tools";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { ACME_TOKEN } from "../helpers/tokens";
import { toolErrorOf } from "../helpers/tool-results";

// The target-selection guardrail, for a 2025 client (v1 SDK) and a
// 2026-07-28 client (v2 SDK) alike: no input schema names a url, host, target
// or account anywhere, and no tool takes an argument its schema does not list.

/** Every tool the server registers, sorted; contract.test.ts pins that these are exactly the expected ones. */
const REGISTERED_TOOLS: readonly string[] = ALL_TOOLS.map((t) => t.name).sort();

/** No tool argument may name where traffic goes or whose data it touches. */
const FORBIDDEN_PROPERTY = /url|uri|host|endpoint|target|binding|account/i;

function forbiddenProperties(schema: unknown): string[] {
  return propertyNames(schema).filter((p) => FORBIDDEN_PROPERTY.test(p.slice(p.lastIndexOf(".") + 1)));
}

describe.each(CLIENT_GENERATIONS)("through the $label (protocol $protocol)", (generation) => {
  let client: McpTestClient;
  let tools: ListedTool[];

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "contract");
    tools = (await client.listTools()).tools as ListedTool[];
  });
  afterAll(async () => {
    await client.close();
  });

  function tool(name: string): ListedTool {
    const found = tools.find((t) => t.name === name);
    if (!found) throw new Error(`tool ${name} is not listed`);
    return found;
  }

  describe("the target-selection guardrail in the schemas", () => {
    it("the scanner finds a forbidden name nested anywhere (self-check)", () => {
      const planted = {
        type: "object",
        properties: {
          count: { type: "integer" },
          options: { type: "object", properties: { callbackHost: { type: "string" } } },
        },
        anyOf: [{ properties: { baseURL: { type: "string" } } }],
        items: { properties: { Account_id: { type: "string" } } },
      };
      expect(forbiddenProperties(planted).sort()).toEqual([
        "$.options.callbackHost",
        "$/anyOf[0].baseURL",
        "$/items.Account_id",
      ]);
      expect(forbiddenProperties({ type: "object", properties: { count: {}, mode: {}, seed: {} } })).toEqual([]);
    });

    it.each(REGISTERED_TOOLS)(
      "%s has no input property naming a url, uri, host, endpoint, target, binding or account",
      (name) => {
        expect(forbiddenProperties(tool(name).inputSchema)).toEqual([]);
      },
    );

    it("no listed tool at all (including any added later) has such a property", () => {
      const violations = tools.flatMap((t) => forbiddenProperties(t.inputSchema).map((p) => `${t.name}: ${p}`));
      expect(violations).toEqual([]);
    });

    it("no listed tool at all accepts properties it does not list", () => {
      expect(tools.filter((t) => t.inputSchema.additionalProperties !== false).map((t) => t.name)).toEqual([]);
    });

    it("nor does any object nested in a tool's input: stages, thresholds, shares, addresses", () => {
      const planted = {
        type: "object",
        additionalProperties: false,
        properties: { stages: { type: "array", items: { type: "object", properties: { rate: {} } } } },
      };
      expect(openObjects(planted)).toEqual(["$.stages/items"]);
      expect(tools.flatMap((t) => openObjects(t.inputSchema).map((p) => `${t.name}: ${p}`))).toEqual([]);
    });

    it.each([
      [
        "start_traffic_run",
        { stages: [{ duration_seconds: 5, rate_per_second: 2, target_url: "https://evil.example" }] },
      ],
      [
        "start_traffic_run",
        { rate_per_second: 2, duration_seconds: 5, thresholds: [{ metric: "p99_ms", op: "<", value: 300, host: "x" }] },
      ],
      ["start_traffic_run", { rate_per_second: 2, duration_seconds: 5, invalid_share: { target_url: 0.1 } }],
      [
        "prepare_address_change",
        {
          order_id: "ORD-1001",
          address: {
            recipient: "A",
            line1: "1 Main St",
            city: "X",
            region: "CA",
            postal_code: "1",
            country: "US",
            host: "x",
          },
        },
      ],
    ])("%s refuses an unknown key nested in its input, naming it (%j)", async (name, args) => {
      const unknown = JSON.stringify(args).match(/"(target_url|host)"/)?.[1];
      const text = toolErrorOf(await client.callTool({ name, arguments: args }));
      expect(text).toMatch(new RegExp(`^Input validation error: Invalid arguments for tool ${name}: `));
      expect(text).toContain(`Unrecognized key: "${unknown}"`);
    });

    // Refused before the handler runs, so even the tools that write change nothing.
    it.each(REGISTERED_TOOLS)("%s refuses a call with an unknown argument, naming it", async (name) => {
      const text = toolErrorOf(await client.callTool({ name, arguments: { callback_url: "https://evil.example" } }));
      expect(text).toMatch(new RegExp(`^Input validation error: Invalid arguments for tool ${name}: `));
      expect(text).toContain('Unrecognized key: "callback_url"');
      // One readable line, not a multi-line schema dump.
      expect(text).not.toContain("\n");
    });
  });
});
