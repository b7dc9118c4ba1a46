import { describe, expect, it } from "vitest";
import { z } from "zod";
import { portableJsonSchema, publishedSchema, resultOutline } from "../../src/mcp/published-schema";

// What clients read: zod's JSON Schema, with every `type` array split into
// one anyOf branch per type (the MCP Inspector's strict mode flags the arrays).

describe("portableJsonSchema", () => {
  it("splits a nullable type; constraints go with their type, description and default stay outside", () => {
    expect(
      portableJsonSchema({
        type: ["string", "null"],
        minLength: 1,
        enum: ["a", "b", null],
        description: "d",
        default: null,
      }),
    ).toEqual({
      description: "d",
      default: null,
      anyOf: [{ type: "string", minLength: 1, enum: ["a", "b", null] }, { type: "null" }],
    });
  });

  it("reaches nested properties, items and $defs, and leaves single types alone", () => {
    const schema = {
      type: "object",
      properties: { list: { type: "array", items: { type: ["integer", "null"] } }, name: { type: "string" } },
      $defs: { inner: { type: ["object", "null"], properties: { x: { type: "number" } } } },
    };
    expect(portableJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        list: { type: "array", items: { anyOf: [{ type: "integer" }, { type: "null" }] } },
        name: { type: "string" },
      },
      $defs: { inner: { anyOf: [{ type: "object", properties: { x: { type: "number" } } }, { type: "null" }] } },
    });
  });
});

describe("publishedSchema", () => {
  const schema = z.object({ when: z.string().nullable().describe("null while running") });

  it("publishes the portable form and still validates with zod", async () => {
    const published = publishedSchema(schema);
    expect(published["~standard"].jsonSchema.output({ target: "draft-2020-12" })).toMatchObject({
      properties: { when: { description: "null while running", anyOf: [{ type: "string" }, { type: "null" }] } },
    });
    expect(await published["~standard"].validate({ when: null })).toEqual({ value: { when: null } });
    const refused = await published["~standard"].validate({ when: 3 });
    expect("issues" in refused && refused.issues?.[0]?.path).toEqual(["when"]);
  });

  it("publishes no dialect and no safe-integer bounds, and keeps the bounds a schema sets itself", () => {
    const counts = publishedSchema(
      z.object({ any: z.number().int(), some: z.number().int().min(0), few: z.number().int().min(1).max(100) }),
    );
    const json = counts["~standard"].jsonSchema.input({ target: "draft-2020-12" });
    expect(json).not.toHaveProperty("$schema");
    expect(json.properties).toEqual({
      any: { type: "integer" },
      some: { type: "integer", minimum: 0 },
      few: { type: "integer", minimum: 1, maximum: 100 },
    });
  });

  it("still refuses an integer beyond the safe range, with zod", async () => {
    const refused = await publishedSchema(z.object({ n: z.number().int() }))["~standard"].validate({ n: 2 ** 60 });
    expect("issues" in refused && refused.issues?.[0]?.path).toEqual(["n"]);
  });
});

describe("resultOutline", () => {
  const json = {
    type: "object",
    description: "a run",
    properties: {
      id: { type: "string", description: "its id" },
      status: { type: "string", enum: ["running", "done"] },
      plan: { type: "object", properties: { rate: { type: "number" } }, required: ["rate"] },
      steps: { type: "array", items: { type: "object", properties: { rate: { type: "number" } } } },
      paused: { anyOf: [{ type: "object", properties: { since: { type: "string" } } }, { type: "null" }] },
      change: {
        oneOf: [
          { type: "object", properties: { a: {} } },
          { type: "object", properties: { b: {} } },
        ],
      },
      notes: { type: "array", items: { type: "string" }, default: [] },
    },
    required: ["id", "status", "plan", "steps", "paused", "change", "notes"],
    additionalProperties: false,
  };

  it("keeps every top-level field, its type and enum, and loosens what is nested to its type, without prose", () => {
    expect(resultOutline(json)).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        status: { type: "string", enum: ["running", "done"] },
        plan: { type: "object" },
        steps: { type: "array", items: { type: "object" } },
        paused: { anyOf: [{ type: "object" }, { type: "null" }] },
        change: { type: "object" },
        notes: { type: "array", items: { type: "string" } },
      },
      required: json.required,
      additionalProperties: false,
    });
  });

  it("narrowed to the identifying fields, it requires only those and leaves the object open", () => {
    expect(resultOutline(json, ["id", "status"])).toEqual({
      type: "object",
      properties: { id: { type: "string" }, status: { type: "string", enum: ["running", "done"] } },
      required: ["id", "status"],
    });
  });
});

describe("a trusted (output) schema", () => {
  it("does not run zod again over a result the server made itself; an untrusted one still refuses", async () => {
    const schema = z.object({ n: z.number() });
    const wrong = { n: "not a number" };
    expect(await publishedSchema(schema, { trusted: true })["~standard"].validate(wrong)).toEqual({ value: wrong });
    expect("issues" in (await publishedSchema(schema)["~standard"].validate(wrong))).toBe(true);
  });
});
