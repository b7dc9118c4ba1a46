/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

// The folder layout is the architecture: each folder is one concern and
// imports only from folders below it. This reads every source file (vite
// inlines them at build time) and checks each relative import against the
// layers, so a new arrow pointing up fails here instead of in review.

const sources = import.meta.glob<string>("../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/** Everything else a person reads and changes: the tests, the browser tests, the scripts and the bench's floor Worker. */
const otherFiles = import.meta.glob<string>(["./**/*.ts", "../e2e/**/*.ts", "../scripts/**/*.ts", "../scripts/**/*.mjs", "../bench/**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** The most lines a file may have, wherever it is: past this it wants splitting by concern. */
const MAX_LINES = 300;

/** Lines as `wc -l` counts them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** A glob key as a path from the repository root ("../src/x.ts" -> "src/x.ts", "./x.ts" -> "test/x.ts"). */
function repoPath(key: string): string {
  return key.startsWith("./") ? `test/${key.slice(2)}` : key.replace(/^\.\.\//, "");
}

/** Lower layers first; a module may import from its own folder or from a lower layer. */
const LAYER: Record<string, number> = {
  core: 0,
  platform: 0,
  config: 1,
  orders: 2,
  audit: 2,
  http: 2,
  auth: 3,
  store: 4,
  proposals: 5,
  synth: 5,
  account: 6,
  mcp: 7,
  web: 7,
  "order-api": 7,
  oauth: 7,
  "(entry)": 8,
};

function folderOf(path: string): string {
  const parts = path.replace(/^\.\.\/src\//, "").split("/");
  return parts.length === 1 ? "(entry)" : (parts[0] ?? "?");
}

function resolve(from: string, specifier: string): string {
  const stack = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") stack.pop();
    else if (part !== ".") stack.push(part);
  }
  return stack.join("/");
}

const imports = Object.entries(sources).flatMap(([file, text]) =>
  [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) => ({ file, target: resolve(file, match[1] ?? "") })),
);

describe("architecture", () => {
  it("reads the source tree, and the tests, browser tests, scripts and bench for the line limit", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(40);
    expect(imports.length).toBeGreaterThan(100);
    const folders = new Set(Object.keys(otherFiles).map((key) => repoPath(key).split("/")[0]));
    expect([...folders].sort()).toEqual(["bench", "e2e", "scripts", "test"]);
    expect(Object.keys(otherFiles)).toContain("./helpers/tokens.ts");
  });

  it("every folder has a layer", () => {
    const folders = new Set(Object.keys(sources).map(folderOf));
    expect([...folders].filter((folder) => LAYER[folder] === undefined)).toEqual([]);
  });

  it("no module imports from a layer above its own (so no folder loop can form)", () => {
    const upward = imports
      .filter(({ target }) => target.startsWith("../src/"))
      .flatMap(({ file, target }) => {
        const from = folderOf(file);
        const to = folderOf(target);
        const ok = from === to || (LAYER[to] ?? 99) < (LAYER[from] ?? -1);
        return ok ? [] : [`${file.replace("../src/", "")} -> ${target.replace("../src/", "")}`];
      });
    expect(upward).toEqual([]);
  });

  it("nothing in src imports the bench: the floor Worker is never part of what is deployed", () => {
    const intoBench = imports.filter(({ target }) => target.startsWith("../bench/")).map(({ file, target }) => `${file} -> ${target}`);
    expect(intoBench).toEqual([]);
  });

  it('every zod import names "zod/v4": the bundle leaves bare "zod" to agents\' stand-in (wrangler.toml [alias])', () => {
    const bare = Object.entries(sources)
      .filter(([, text]) => /from\s+["']zod["']/.test(text))
      .map(([file]) => file.replace("../src/", ""));
    expect(bare).toEqual([]);
  });

  it(`no file in src, test, e2e, scripts or bench is over ${MAX_LINES} lines`, () => {
    const long = Object.entries({ ...sources, ...otherFiles })
      .map(([key, text]) => [repoPath(key), lineCount(text)] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
