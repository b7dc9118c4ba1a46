/**
 * What each listed tool costs in a tools/list answer, in bytes of JSON: whole
 * (what every client downloads) and without its outputSchema (what most
 * clients hand the model).
 */
export interface ToolBytes {
  readonly name: string;
  readonly whole: number;
  readonly withoutOutput: number;
}

export const jsonBytes = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).length;

export function toolBytes(tools: readonly { name: string; outputSchema?: unknown }[]): ToolBytes[] {
  return tools.map((tool) => {
    const { outputSchema: _output, ...rest } = tool;
    return { name: tool.name, whole: jsonBytes(tool), withoutOutput: jsonBytes(rest) };
  });
}

/** The listing as a client reads it, with and without the output schemas. */
export function listBytes(tools: readonly { name: string; outputSchema?: unknown }[]): {
  whole: number;
  withoutOutput: number;
} {
  return {
    whole: jsonBytes({ tools }),
    withoutOutput: jsonBytes({ tools: tools.map(({ outputSchema: _output, ...rest }) => rest) }),
  };
}
