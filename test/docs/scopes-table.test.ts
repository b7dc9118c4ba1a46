/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import page from "../../docs/oauth.md?raw";
import { SCOPES } from "../../src/core/scopes";
import { ALL_RESOURCES, ALL_TOOLS } from "../../src/mcp/server";

// The scope table is what a person reads before ticking boxes on the consent
// page, so it must name exactly what each scope opens: a tool added without
// its row would be granted by a scope nobody was told about.

const table = new Map<string, string[]>(
  page.split("\n").flatMap((line) => {
    const match = /^\| `([a-z]+:[a-z]+)` \| (.*) \|$/.exec(line);
    if (!match) return [];
    const names = [...(match[2] ?? "").matchAll(/`([^`]+)`/g)].map((name) => name[1] ?? "");
    return [[match[1] ?? "", names]];
  }),
);

function offeredUnder(scope: string): string[] {
  const tools = ALL_TOOLS.filter((tool) => tool.scope === scope).map((tool) => tool.name);
  const resources = ALL_RESOURCES.filter((resource) => resource.scope === scope).map((resource) =>
    "uri" in resource ? resource.uri : resource.uriTemplate,
  );
  return [...tools, ...resources].sort();
}

describe("docs/oauth.md scope table", () => {
  it("has one row per scope", () => {
    expect([...table.keys()].sort()).toEqual([...SCOPES].sort());
  });

  it.each([...SCOPES])("names every tool and resource %s opens, and nothing else", (scope) => {
    const offered = new Set([
      ...ALL_TOOLS.map((tool) => tool.name),
      ...ALL_RESOURCES.map((resource) => ("uri" in resource ? resource.uri : resource.uriTemplate)),
    ]);
    // Settings named beside a tool (e.g. "when `DEMO_TOOLS` is on") are not offerings.
    const named = (table.get(scope) ?? []).filter((name) => offered.has(name)).sort();
    expect(named).toEqual(offeredUnder(scope));
  });
});
