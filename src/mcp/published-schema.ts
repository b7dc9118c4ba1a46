/**
 * The JSON Schema a client reads is derived from our zod schemas, never
 * hand-written. This module only reshapes what zod emits so that every client
 * can read it; validation stays with zod.
 */
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod/v4";

type JsonSchema = Record<string, unknown>;

function isSchemaObject(value: unknown): value is JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * zod writes a nullable field as `type: ["string", "null"]`. That is legal JSON
 * Schema, but several MCP clients read `type` as one string and then drop the
 * constraint or the whole tool (the MCP Inspector's strict mode warns about
 * it). The same contract as one `anyOf` branch per type reads everywhere.
 */
export function portableJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portableJsonSchema);
  if (!isSchemaObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) out[key] = portableJsonSchema(value);
  const type = out.type;
  if (!Array.isArray(type)) return out;
  const { type: _types, ...rest } = out;
  const typed = type.filter((t): t is string => typeof t === "string");
  // Keywords that describe the value (description, default) stay on the outside; the
  // ones that constrain one type (enum, minimum, properties...) go with that branch.
  const { description, default: fallback, title, ...constraints } = rest;
  const outer: JsonSchema = {};
  if (title !== undefined) outer.title = title;
  if (description !== undefined) outer.description = description;
  if (fallback !== undefined) outer.default = fallback;
  outer.anyOf = typed.map((t) => (t === "null" ? { type: "null" } : { type: t, ...constraints }));
  return outer;
}

/**
 * zod bounds every `.int()` by the safe-integer range and names its dialect on
 * each schema. Neither says anything to a client: MCP reads a schema without
 * `$schema` as JSON Schema 2020-12 (SEP-1613), and validators that only know
 * draft-07 refuse the 2020-12 URI outright. Together they were about 8 KiB of
 * every tools/list answer, which is paid again on each listing.
 */
function withoutZodBoilerplate(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return stripSafeIntegerBounds(rest) as JsonSchema;
}

function stripSafeIntegerBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripSafeIntegerBounds);
  if (!isSchemaObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = stripSafeIntegerBounds(value);
  }
  return out;
}

/**
 * Wraps a zod object so the SDK validates with zod but publishes the portable
 * JSON Schema. The SDK asks for the JSON Schema on every tools/list, and zod
 * builds it afresh each time; the contract only changes with a deploy, so each
 * conversion is made once per target and then reused.
 */
export interface PublishOptions {
  /** Reshapes the JSON Schema clients read (resultOutline, for a tool's output). */
  readonly reshape?: (json: JsonSchema) => JsonSchema;
  /**
   * For a tool's output: the server does not check its own results against the schema again. The SDK validates
   * every result with the schema it is given, and for our results that was about a tenth of a read's CPU (zod over
   * the whole answer, 4.8 KB for get_order_details). A handler's result is typed by the same zod schema at compile
   * time (tool-registration.ts), what it reads from storage is parsed by the stores' schemas, and every test that
   * calls a tool does so through an SDK client that validates the result against the published schema.
   */
  readonly trusted?: boolean;
}

export function publishedSchema<S extends z.ZodObject>(
  schema: S,
  { reshape = (json) => json, trusted = false }: PublishOptions = {},
): StandardSchemaWithJSON<z.input<S>, z.output<S>> {
  const standard = schema["~standard"];
  const converted = new Map<string, JsonSchema>();
  const convert = (io: "input" | "output", options: { readonly target: string }): JsonSchema => {
    const key = `${io}:${options.target}`;
    let json = converted.get(key);
    if (json === undefined) {
      json = reshape(withoutZodBoilerplate(portableJsonSchema(standard.jsonSchema[io](options)) as JsonSchema));
      converted.set(key, json);
    }
    return json;
  };
  return {
    "~standard": {
      ...standard,
      ...(trusted ? { validate: (value: unknown) => ({ value: value as z.output<S> }) } : {}),
      jsonSchema: {
        input: (options) => convert("input", options),
        output: (options) => convert("output", options),
      },
    },
  };
}

/** Keywords that only explain a value to a reader; a client validating a result does not need them. */
const PROSE = new Set(["description", "title", "examples", "default"]);

/**
 * A nested value as a result's outline names it: its type (and, for arrays and
 * choices, the types inside), not its fields. Enums and bounds stay: they are
 * short and a client may branch on them.
 */
function loosened(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(loosened);
  if (!isSchemaObject(schema)) return schema;
  if (schema.type === "object" || "properties" in schema) return { type: "object" };
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) if (!PROSE.has(key)) out[key] = loosened(value);
  for (const choice of ["anyOf", "oneOf"] as const) {
    const branches = out[choice];
    if (!Array.isArray(branches)) continue;
    // Three object variants loosen to the same {type: object}: say it once.
    const distinct = [...new Map(branches.map((b) => [JSON.stringify(b), b])).values()];
    if (distinct.length === 1) {
      delete out[choice];
      Object.assign(out, distinct[0]);
    } else out[choice] = distinct;
  }
  return out;
}

/**
 * What tools/list publishes as a tool's outputSchema: the result's top level
 * (every field, its type, which are required) with nested objects loosened to
 * `{type: "object"}` and no prose. Every client downloads every output schema on
 * each listing and few read them, so the full tree (about 112 KB of the listing
 * when it was published whole) was paid for by every client for the benefit of
 * type generators; the zod schema still validates every result on the server.
 *
 * `fields` narrows the outline to the fields that identify the result, for a
 * tool that answers the same thing another tool's outline already spells out
 * (start_traffic_run answers a run as get_traffic_run does): MCP has no way to
 * share one schema between tools, so a shared schema is paid for once. The
 * narrowed outline leaves the object open, since the result has more fields.
 */
export function resultOutline(json: JsonSchema, fields?: readonly string[]): JsonSchema {
  const properties = isSchemaObject(json.properties) ? json.properties : {};
  const kept = Object.entries(properties).filter(([name]) => fields === undefined || fields.includes(name));
  const required = Array.isArray(json.required) ? json.required.filter((name) => kept.some(([k]) => k === name)) : [];
  return {
    type: "object",
    properties: Object.fromEntries(kept.map(([name, child]) => [name, loosened(child)])),
    ...(required.length > 0 ? { required } : {}),
    ...(fields === undefined && json.additionalProperties === false ? { additionalProperties: false } : {}),
  };
}
