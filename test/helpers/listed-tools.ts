/** The parts of a published JSON schema the tool contracts read. */
export interface JsonSchemaObject {
  type?: unknown;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: unknown;
}

/** A tool as tools/list lists it (the fields the contracts read). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** Every property name anywhere in a JSON schema (properties, items, anyOf, $defs, ...), with its path. */
export function propertyNames(schema: unknown, path = "$"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => propertyNames(item, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "properties" || key === "patternProperties") && value !== null && typeof value === "object") {
      for (const [name, child] of Object.entries(value)) {
        found.push(`${path}.${name}`);
        found.push(...propertyNames(child, `${path}.${name}`));
      }
    } else {
      found.push(...propertyNames(value, `${path}/${key}`));
    }
  }
  return found;
}

/** Paths of every object in a JSON schema, at any depth, that would take a property it does not list. */
export function openObjects(schema: unknown, path = "$"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => openObjects(item, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  const node = schema as Record<string, unknown>;
  const isObject = node.type === "object" || "properties" in node;
  const open = isObject && node.additionalProperties !== false ? [path] : [];
  const nested = Object.entries(node).flatMap(([key, value]) =>
    key === "properties" && value !== null && typeof value === "object"
      ? Object.entries(value).flatMap(([name, child]) => openObjects(child, `${path}.${name}`))
      : openObjects(value, `${path}/${key}`),
  );
  return [...open, ...nested];
}
