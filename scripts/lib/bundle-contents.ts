// What must never ship: names the official MCP conformance suite calls by.
// The suite fixes them, so they stay stable, and they survive minification as
// string literals. One tool, one resource and one prompt: any of them in the
// deployable bundle means the development-only fixtures went with it.

export const FIXTURE_MARKERS = ["test_simple_text", "test://static-text", "test_simple_prompt"] as const;

export interface ModuleText {
  readonly name: string;
  readonly text: string;
}

/** Each marker found, as "marker in module"; empty when the bundle is clean. */
export function fixturesIn(modules: readonly ModuleText[]): string[] {
  return modules.flatMap((module) =>
    FIXTURE_MARKERS.filter((marker) => module.text.includes(marker)).map((marker) => `${marker} in ${module.name}`),
  );
}
