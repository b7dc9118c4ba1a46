import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListedTool, propertyNames } from "../helpers/listed-tools";
import { CLIENT_GENERATIONS, type McpTestClient } from "../helpers/mcp-client";
import { ACME_TOKEN } from "../helpers/tokens";
import { START_CAPACITY_SEARCH_FIELDS, START_TRAFFIC_RUN_FIELDS } from "../helpers/tool-fields";

// The tools an MCP client sees, identical for a 2025 client (v1 SDK) and a
// 2026-07-28 client (v2 SDK): names, annotations and schemas. Add a row here
// when a tool is added. That no argument picks a target is in
// contract-guardrail.test.ts; resources and result shapes are in
// contract-resources.test.ts.

interface ExpectedTool {
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: boolean;
  };
  /** Input property names, sorted. */
  readonly input: readonly string[];
  /** Required input property names, sorted. */
  readonly required: readonly string[];
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The synthetic-traffic toolset (src/mcp/synthetic.tools.ts), specified in full. */
const SYNTHETIC_TOOLS: Readonly<Record<string, ExpectedTool>> = {
  check_target: { annotations: READ_ONLY, input: [], required: [] },
  preview_order: { annotations: READ_ONLY, input: ["mode", "seed"], required: [] },
  send_orders: {
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: ["count", "mode", "seed"],
    required: ["count"],
  },
};

const WRITE_ONCE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;
const APPLY = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const;

/** The traffic-run toolset (src/mcp/runs.tools.ts). */
const RUN_TOOLS: Readonly<Record<string, ExpectedTool>> = {
  // The load is either rate_per_second with duration_seconds, or stages: neither is required on its own, and the
  // handler says which is missing.
  start_traffic_run: {
    annotations: WRITE_ONCE,
    input: [
      "duration_seconds",
      "invalid_share",
      "locations",
      "mode",
      "ramp_seconds",
      "rate_per_second",
      "seed",
      "stages",
      "start_rate",
      "thresholds",
    ],
    required: [],
  },
  get_traffic_run: { annotations: READ_ONLY, input: ["detail", "run_id"], required: ["run_id"] },
  stop_traffic_run: {
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: ["run_id"],
    required: ["run_id"],
  },
  compare_traffic_runs: {
    annotations: READ_ONLY,
    input: ["baseline_run_id", "run_id", "tolerance_percent"],
    required: ["baseline_run_id", "run_id"],
  },
};

/** The capacity-search toolset (src/mcp/capacity.tools.ts): its own stop, since its answer is a search, not a run. */
const CAPACITY_TOOLS: Readonly<Record<string, ExpectedTool>> = {
  start_capacity_search: {
    annotations: WRITE_ONCE,
    input: [
      "highest_rate",
      "locations",
      "lowest_rate",
      "mode",
      "objective",
      "seed",
      "step_seconds",
      "tolerance",
      "warmup_seconds",
    ],
    required: ["highest_rate", "lowest_rate", "objective"],
  },
  get_capacity_search: { annotations: READ_ONLY, input: ["detail", "search_id"], required: ["search_id"] },
  stop_capacity_search: {
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: ["search_id"],
    required: ["search_id"],
  },
};

/**
 * The order-operations toolset (src/mcp/orders.tools.ts). Proposing is
 * read-only for the order (a proposal is inert); applying is destructive but
 * idempotent. simulate_new_failure is a demo tool, listed because the test
 * environment has DEMO_TOOLS=on.
 */
const ORDER_OPERATIONS_TOOLS: Readonly<Record<string, ExpectedTool>> = {
  get_order_status: { annotations: READ_ONLY, input: ["order_id"], required: ["order_id"] },
  list_order_exceptions: { annotations: READ_ONLY, input: [], required: [] },
  get_order_details: { annotations: READ_ONLY, input: ["order_id"], required: ["order_id"] },
  get_order_audit_log: { annotations: READ_ONLY, input: ["cursor", "limit", "order_id"], required: ["order_id"] },
  propose_resolution: { annotations: READ_ONLY, input: ["order_id"], required: ["order_id"] },
  prepare_address_change: { annotations: READ_ONLY, input: ["address", "order_id"], required: ["address", "order_id"] },
  cancel_order: { annotations: READ_ONLY, input: ["order_id", "reason"], required: ["order_id", "reason"] },
  get_proposal: { annotations: READ_ONLY, input: ["proposal_id"], required: ["proposal_id"] },
  confirm_resolution: { annotations: APPLY, input: ["proposal_id"], required: ["proposal_id"] },
  apply_approved_change: { annotations: APPLY, input: ["proposal_id"], required: ["proposal_id"] },
  simulate_new_failure: { annotations: WRITE_ONCE, input: [], required: [] },
  wait_for_approval: { annotations: READ_ONLY, input: ["proposal_id", "timeout_seconds"], required: ["proposal_id"] },
};

/** Every tool, specified in full: the annotation and input checks below run for each. */
const ALL_TOOLS: Readonly<Record<string, ExpectedTool>> = {
  ...SYNTHETIC_TOOLS,
  ...RUN_TOOLS,
  ...CAPACITY_TOOLS,
  ...ORDER_OPERATIONS_TOOLS,
};

const EXPECTED_TOOLS: readonly string[] = Object.keys(ALL_TOOLS).sort();

/** Every place in a JSON schema where `type` is an array, with its path. */
function typeArrays(schema: unknown, path = "$"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => typeArrays(item, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === "type" && Array.isArray(value) ? [`${path}.type`] : typeArrays(value, `${path}.${key}`),
  );
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

  describe("tool list", () => {
    it("lists exactly the expected tools", () => {
      expect(tools.map((t) => t.name).sort()).toEqual(EXPECTED_TOOLS);
    });

    it.each(Object.entries(ALL_TOOLS))("%s advertises its four annotations exactly", (name, expected) => {
      const { annotations } = tool(name);
      expect(annotations).toBeDefined();
      expect({
        readOnlyHint: annotations?.readOnlyHint,
        destructiveHint: annotations?.destructiveHint,
        idempotentHint: annotations?.idempotentHint,
        openWorldHint: annotations?.openWorldHint,
      }).toEqual(expected.annotations);
      // Nothing else is hidden in the annotations besides the display title.
      expect(Object.keys(annotations ?? {}).sort()).toEqual([
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
        "title",
      ]);
      expect(annotations?.title).toBe(tool(name).title);
    });

    it.each(EXPECTED_TOOLS)("%s states all four hints explicitly as booleans", (name) => {
      const { annotations } = tool(name);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect(typeof annotations?.[hint], `${name}.${hint}`).toBe("boolean");
      }
      // MCP: destructiveHint only means something for tools that write.
      if (annotations?.readOnlyHint === true) expect(annotations.destructiveHint).toBe(false);
      // Nothing here reaches outside this Worker's own order API.
      expect(annotations?.openWorldHint).toBe(false);
    });

    it.each(EXPECTED_TOOLS)("%s has a title, a real description and object input/output schemas", (name) => {
      const t = tool(name);
      expect(t.title).toBeTypeOf("string");
      expect((t.title ?? "").trim().length).toBeGreaterThanOrEqual(8);
      expect(t.description).toBeTypeOf("string");
      expect((t.description ?? "").length).toBeGreaterThanOrEqual(80);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
    });

    it.each(Object.entries(ALL_TOOLS))("%s takes exactly its expected input properties", (name, expected) => {
      const { inputSchema } = tool(name);
      expect(Object.keys(inputSchema.properties ?? {}).sort()).toEqual([...expected.input]);
      expect([...(inputSchema.required ?? [])].sort()).toEqual([...expected.required]);
      // Nothing nested hides further parameters, except the address object, whose fields are pinned in its own
      // tests, and a load test's stages, thresholds and drill shares, pinned here one by one.
      if (name === "start_traffic_run")
        expect(
          propertyNames(inputSchema)
            .map((p) => p.replace(/\/(anyOf|items)(\[\d+\])?/g, ""))
            .sort(),
        ).toEqual(START_TRAFFIC_RUN_FIELDS);
      else if (name === "start_capacity_search")
        expect(
          propertyNames(inputSchema)
            .map((p) => p.replace(/\/(anyOf|items)(\[\d+\])?/g, ""))
            .sort(),
        ).toEqual(START_CAPACITY_SEARCH_FIELDS);
      else if (name !== "prepare_address_change")
        expect(propertyNames(inputSchema)).toHaveLength(expected.input.length);
    });

    it.each(EXPECTED_TOOLS)(
      "%s refuses unknown arguments in its listed schema (additionalProperties: false)",
      (name) => {
        expect(tool(name).inputSchema.additionalProperties).toBe(false);
      },
    );

    it("send_orders advertises exactly the count the server accepts: 1 to MAX_BATCH (100 here)", () => {
      expect(tool("send_orders").inputSchema.properties?.count).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 100,
      });
    });

    it("start_traffic_run advertises exactly the caps the server enforces (MAX_RUN_RATE 50, MAX_RUN_SECONDS 900 here)", () => {
      const properties = tool("start_traffic_run").inputSchema.properties;
      expect(properties?.rate_per_second).toMatchObject({ type: "number", exclusiveMinimum: 0, maximum: 50 });
      expect(properties?.duration_seconds).toMatchObject({ type: "integer", minimum: 1, maximum: 900 });
      expect(properties?.ramp_seconds).toMatchObject({ type: "integer", minimum: 0, maximum: 900 });
      expect(
        (properties?.thresholds as { items?: { properties?: { metric?: { enum?: string[] } } } } | undefined)?.items
          ?.properties?.metric?.enum,
      ).toEqual(expect.arrayContaining(["p99_ms", "service_p99_ms", "error_rate", "rejected_rate", "dropped_rate"]));
      expect(String(properties?.duration_seconds?.description)).toContain("20000 orders (MAX_RUN_ORDERS)");
    });

    it.each(EXPECTED_TOOLS)(
      "%s states every type as one string, never an array (MCP Inspector strict mode)",
      (name) => {
        expect(typeArrays(tool(name).inputSchema)).toEqual([]);
        expect(typeArrays(tool(name).outputSchema)).toEqual([]);
      },
    );

    it("a nullable output field is one anyOf branch per type (output schemas carry no descriptions)", () => {
      expect(tool("check_target").outputSchema?.properties?.skus).toEqual({
        anyOf: [{ type: "integer" }, { type: "null" }],
      });
    });

    it("publishes no zod boilerplate: no $schema (MCP's default dialect is 2020-12) and no safe-integer bounds", () => {
      expect(JSON.stringify(tools)).not.toMatch(new RegExp(`"\\$schema"|${Number.MAX_SAFE_INTEGER}`));
    });

    it("offers the generator modes as an enum that defaults to seeded", () => {
      for (const name of ["preview_order", "send_orders"]) {
        expect(tool(name).inputSchema.properties?.mode).toMatchObject({
          type: "string",
          enum: ["seeded", "simple"],
          default: "seeded",
        });
        expect(tool(name).inputSchema.properties?.seed).toMatchObject({
          type: "integer",
          minimum: 0,
          maximum: 4294967295,
        });
      }
    });
  });
});
