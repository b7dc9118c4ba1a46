/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import guide from "../../CONTRIBUTING.md?raw";
import { APPLIED_EVENT_TYPES, PROPOSE_TOOL_NAMES } from "../../src/orders/change-kinds";
import { OrderRequestSchema } from "../../src/orders/intake-schemas";

// Two recipes of CONTRIBUTING.md name the files a change of their kind
// touches. Where the compiler does not lead the way, the files are found
// here from the code itself, so a recipe that stops naming one fails:
// - "Add a change kind": every file that lists every kind (each kind's
//   proposing tool, or each kind's applied event) is a list the last kind
//   added had to join, and the next one will too;
// - "Add an intake field": every source file that spells out every field of
//   the request by hand is a place a new field could be forgotten (as
//   sameOrder() once compared five fields by hand and missed a sixth).

const loaded = import.meta.glob<string>(
  ["../../src/**/*.ts", "../**/*.ts", "../../e2e/**/*.ts", "../../docs/*.md", "../../README.md"],
  { query: "?raw", import: "default", eager: true },
);
/** Each file by its path from the repository's root; the generated card scripts are not read by people. */
const files = new Map(
  Object.entries(loaded)
    .map(([key, text]) => [key.startsWith("../../") ? key.slice(6) : `test/${key.slice(3)}`, text] as const)
    .filter(([path]) => path !== "src/mcp/cards/card-scripts.ts"),
);

/** The recipe's text, from its heading to the next. */
function recipe(page: string, heading: string): string {
  return page.split(/^## /m).find((section) => section.startsWith(`${heading}\n`)) ?? "";
}

/** Every repository path a text names, in code or as a link. */
function pathsIn(text: string): Set<string> {
  const inCode = [...text.matchAll(/`([^`\s]+\.(?:ts|md))`/g)].map((match) => match[1] ?? "");
  const linked = [...text.matchAll(/\]\(([^)#\s]+\.(?:ts|md))(?:#[^)]*)?\)/g)].map((match) => match[1] ?? "");
  return new Set([...inCode, ...linked]);
}

const mentions = (text: string, name: string) => new RegExp(`\\b${name}\\b`).test(text);

/** The code without its comments: a comment that lists fields is no place a field could be forgotten. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** Files that name every one of `names`. */
function listing(names: readonly string[], candidates: Iterable<[string, string]>): string[] {
  return [...candidates].filter(([, text]) => names.every((name) => mentions(text, name))).map(([path]) => path);
}

/** Code (not its comments) that names each of these fields itself: a key, a property read, a column. */
function spellsOut(text: string, fields: readonly string[]): boolean {
  const source = code(text);
  return fields.every((field) => mentions(source, field));
}

describe("CONTRIBUTING.md's recipes name the files a change of their kind touches", () => {
  it("'Add a change kind' names every file that lists every kind", () => {
    const lists = [...listing(PROPOSE_TOOL_NAMES, files), ...listing(APPLIED_EVENT_TYPES, files)];
    expect(lists.length).toBeGreaterThanOrEqual(5);
    const named = pathsIn(recipe(guide, "Add a change kind"));
    expect([...new Set(lists)].filter((path) => !named.has(path)).sort()).toEqual([]);
  });

  it("'Add an intake field' names every source file that spells out the request's fields", () => {
    const fields = Object.keys(OrderRequestSchema.shape).filter((field) => field !== "request_id");
    const sources = [...files].filter(([path]) => path.startsWith("src/") || path.startsWith("test/helpers/"));
    const spelling = sources.filter(([, text]) => spellsOut(text, fields)).map(([path]) => path);
    expect(spelling).toContain("src/orders/intake-schemas.ts");
    const named = pathsIn(recipe(guide, "Add an intake field"));
    expect(spelling.filter((path) => !named.has(path)).sort()).toEqual([]);
  });

  it("the checks read what they claim (self-check)", () => {
    expect(recipe("## Add a\nx `src/a.ts`\n## Add b\ny", "Add a")).toBe("Add a\nx `src/a.ts`\n");
    expect([...pathsIn("see `src/a.ts`, [b](docs/b.md#x) and `npm test`")]).toEqual(["src/a.ts", "docs/b.md"]);
    const sameOrder = "row.customer_id === order.customer_id && row.lines === lines";
    expect(spellsOut(sameOrder, ["customer_id", "lines"])).toBe(true);
    expect(spellsOut(`// customer_id and lines\nrow.customer_id`, ["customer_id", "lines"])).toBe(false);
    expect(
      listing(
        ["a_b", "c_d"],
        [
          ["x", "a_b then c_d"],
          ["y", "a_b only"],
        ],
      ),
    ).toEqual(["x"]);
  });
});
