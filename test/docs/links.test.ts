/// <reference types="vite/client" />
import { describe, expect, inject, it } from "vitest";
import { codeWords, headingAnchors, linkTargets } from "../helpers/markdown";

// The README and docs/ are what a newcomer follows, so every link, every path
// and every npm script they name must exist. A page moved, a heading reworded
// or a script renamed fails here, naming the page and what it points at.

const loaded = import.meta.glob<string>(["../../README.md", "../../CONTRIBUTING.md", "../../docs/*.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});
/** Each page by its path from the repository's root. */
const pages = new Map(Object.entries(loaded).map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), text]));
const { paths, scripts } = inject("repoFiles");
const files = new Set(paths);

/**
 * The folders a named path may start in; a bare file name (`coordinator.ts`) is relative to its sentence, not the root.
 */
const ROOTED = /^(?:src|test|e2e|scripts|docs|bench|conformance|migrations|cards|seed|\.ci)\//;
/** Folders a script creates when it runs (and .gitignore keeps out of the repository). */
const WRITTEN_BY_RUNS = new Set(["e2e/screenshots/"]);

function resolve(from: string, target: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of target.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/") + (target.endsWith("/") ? "/" : "");
}

describe("the documentation", () => {
  it("has the pages the README's table of contents promises, and the README stays short", () => {
    expect([...pages.keys()]).toEqual(
      expect.arrayContaining(["README.md", "docs/architecture.md", "docs/configuration.md"]),
    );
    expect((pages.get("README.md") ?? "").split("\n").length).toBeLessThanOrEqual(250);
  });

  it.each([...pages.keys()])("%s: every relative link reaches a file, and every anchor a heading", (page) => {
    const broken: string[] = [];
    for (const target of linkTargets(pages.get(page) ?? "")) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [file = "", anchor] = target.split("#");
      const reached = file === "" ? page : resolve(page, file);
      if (file !== "" && !files.has(reached) && !files.has(`${reached}/`)) broken.push(`${target}: no such file`);
      else if (anchor !== undefined && !headingAnchors(pages.get(reached) ?? "").has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${reached}`);
    }
    expect(broken).toEqual([]);
  });

  it.each([...pages.keys()])("%s: every repository path it names exists", (page) => {
    const named = codeWords(pages.get(page) ?? "")
      .map((word) => word.replace(/^["'(]+|[)"',.:;]+$/g, ""))
      .filter((word) => ROOTED.test(word) && !/[<>*{}$]/.test(word) && !WRITTEN_BY_RUNS.has(word));
    expect(named.filter((path) => !files.has(path) && !files.has(`${path}/`))).toEqual([]);
  });

  it.each([...pages.keys()])("%s: every npm script it runs is in package.json", (page) => {
    const words = codeWords(pages.get(page) ?? "");
    const named = words.flatMap((word, at) =>
      word === "run" && words[at - 1] === "npm" && words[at + 1] !== undefined ? [words[at + 1] ?? ""] : [],
    );
    expect(named.filter((name) => !scripts.includes(name.replace(/[`,.;:)]+$/, "")))).toEqual([]);
  });
});
