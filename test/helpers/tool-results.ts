import { expect } from "vitest";

/**
 * What callTool resolves to, in the shape both SDK generations share (the v1
 * `Client` and the v2 one type it differently, but the wire result is the same).
 */
export interface ToolCallResult {
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

function onlyText(result: ToolCallResult): string {
  const content = result.content;
  expect(Array.isArray(content)).toBe(true);
  const blocks = content as ReadonlyArray<{ type: string; text?: string }>;
  expect(blocks).toHaveLength(1);
  const [block] = blocks;
  expect(block?.type).toBe("text");
  expect(typeof block?.text).toBe("string");
  return block?.text ?? "";
}

/**
 * Asserts the call succeeded and that its text content is exactly
 * JSON.stringify(structuredContent), then returns the structured content.
 * The type parameter is the caller's claim about the shape; the assertions
 * in the test check it.
 */
export function structuredOf<T>(call: unknown): T {
  const result = call as ToolCallResult;
  expect(result.isError ?? false, `tool failed: ${JSON.stringify(result.content)}`).toBe(false);
  const structured = result.structuredContent;
  expect(structured).toBeTypeOf("object");
  expect(structured).not.toBeNull();
  expect(onlyText(result)).toBe(JSON.stringify(structured));
  return structured as T;
}

/** The whole wire answer of a tool call, for byte-for-byte comparisons. */
export function wire(result: ToolCallResult): string {
  return JSON.stringify({
    content: result.content,
    structuredContent: result.structuredContent,
    isError: result.isError,
  });
}

/** Asserts the call is a tool error (isError true, no structured content) and returns its message. */
export function toolErrorOf(call: unknown): string {
  const result = call as ToolCallResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return onlyText(result);
}

/** Parses the single JSON text content of a resource read. */
export function resourceJson<T>(read: {
  contents: ReadonlyArray<{ mimeType?: string } & ({ text: string } | { blob: string })>;
}): T {
  expect(read.contents).toHaveLength(1);
  const [content] = read.contents;
  expect(content?.mimeType).toBe("application/json");
  if (!content || !("text" in content)) throw new Error("resource has no text content");
  return JSON.parse(content.text) as T;
}
