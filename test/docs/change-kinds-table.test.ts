/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import page from "../../docs/operations.md?raw";
import { CHANGE_KIND_NAMES, CHANGE_KINDS } from "../../src/orders/change-kinds";

// docs/operations.md lists the kinds of change a proposal can make, each with
// the tools that propose and apply it and the audit event its apply writes.
// The list follows from the registry: a kind added without its row, or a
// tool renamed in its module only, fails here.

/** The code spans of each row of the table under "## Kinds of change". */
function rows(markdown: string): string[][] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Kinds of change")) ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| kind "))
    .map((line) => [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ""));
}

describe("docs/operations.md: the kinds of change", () => {
  it("has one row per kind, naming first its proposing tool, its apply tool and its applied event", () => {
    const expected = CHANGE_KIND_NAMES.map((name) => {
      const kind = CHANGE_KINDS[name];
      return [kind.proposeTool.name, kind.applyTool.name, kind.appliedEvent];
    });
    expect(rows(page).map((spans) => spans.slice(0, 3))).toEqual(expected);
  });

  it("reads the table: a page without it has no rows (self-check)", () => {
    expect(rows("# Other\n| kind | a |\n|---|---|\n| x | `y` |")).toEqual([]);
    expect(rows("## Kinds of change\n\n| kind | a |\n|---|---|\n| x | `y` |")).toEqual([["y"]]);
  });
});
