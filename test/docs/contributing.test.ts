/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import guide from "../../CONTRIBUTING.md?raw";

// CONTRIBUTING.md's recipes name files in order and, in each step, what to
// touch in them. links.test.ts holds every path and npm script it names to
// the repository; this holds each step's symbols to the files the step names,
// so a renamed table or function fails here instead of misleading the next
// person who follows the recipe.

const sources = import.meta.glob<string>(["../../src/**/*.ts", "../**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});
/** Each file by its path from the repository's root. */
const files = new Map(
  Object.entries(sources).map(([key, text]) => [
    key.startsWith("../../") ? key.slice(6) : `test/${key.slice(3)}`,
    text,
  ]),
);

const RECIPES = [
  "Add a tool",
  "Add a change kind",
  "Add an intake field",
  "Add a D1 column",
  "Add a configuration variable",
  "Add a Durable Object storage step",
];

/** The names the recipes invent for their examples: they exist only once someone follows the recipe. */
const EXAMPLE_NAMES = new Set(["ping_account", "coupon_code", "gift_message", "orders", "PING_REPEAT", "pings"]);

interface Step {
  readonly recipe: string;
  readonly text: string;
}

/** Each numbered step of each recipe, its wrapped lines joined. */
function steps(page: string): Step[] {
  const found: { recipe: string; lines: string[] }[] = [];
  let recipe: string | undefined;
  for (const line of page.split("\n")) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) recipe = heading[1];
    else if (recipe !== undefined && /^\d+\. /.test(line)) found.push({ recipe, lines: [line] });
    else if (/^ {3}\S/.test(line)) found.at(-1)?.lines.push(line.trim());
  }
  return found.map(({ recipe: name, lines }) => ({ recipe: name, text: lines.join(" ") }));
}

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");

describe("CONTRIBUTING.md", () => {
  const all = steps(guide);

  it("has the recipes, in order, each a numbered list", () => {
    const headings = [...guide.matchAll(/^## (.*)$/gm)].map((match) => match[1]);
    expect(headings.filter((heading) => heading?.startsWith("Add "))).toEqual(RECIPES);
    for (const recipe of RECIPES)
      expect(all.filter((step) => step.recipe === recipe).length, recipe).toBeGreaterThanOrEqual(3);
  });

  it("every symbol a step names is in one of the source files that step names", () => {
    const missing = all.flatMap(({ recipe, text }) => {
      const spans = codeSpans(text);
      const named = spans.filter((span) => files.has(span));
      if (named.length === 0) return [];
      const symbols = spans.filter((span) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(span) && !EXAMPLE_NAMES.has(span));
      return symbols
        .filter((symbol) => !named.some((file) => new RegExp(`\\b${symbol}\\b`).test(files.get(file) ?? "")))
        .map((symbol) => `${recipe}: ${symbol} (${named.join(", ")})`);
    });
    expect(missing).toEqual([]);
  });

  it("the check reads the files: a step naming a symbol its file lacks is caught (self-check)", () => {
    const text = "1. `src/core/errors.ts`: `ok`, `fail` and `noSuchHelper`.";
    const [step] = steps(`## Add a tool\n${text}`);
    const spans = codeSpans(step?.text ?? "");
    const absent = spans.filter(
      (span) => /^[A-Za-z_]\w*$/.test(span) && !new RegExp(`\\b${span}\\b`).test(files.get("src/core/errors.ts") ?? ""),
    );
    expect(absent).toEqual(["noSuchHelper"]);
  });
});
