/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

// The folder layout is the architecture: each folder is one concern and
// imports only from folders below it. This reads every source file (vite
// inlines them at build time) and checks each relative import against the
// layers, so a new arrow pointing up fails here instead of in review.

const sources = import.meta.glob<string>("../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/**
 * The development-only Worker entry and the conformance suite's fixtures. It
 * sits above src/ and reaches into it only through the entry and the MCP
 * server's extension point, so what it adds is never what wrangler.toml deploys.
 */
const conformanceSources = import.meta.glob<string>("../conformance/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const CONFORMANCE_MAY_IMPORT = ["../src/index", "../src/mcp/server-extension"];

/**
 * The MCP Apps cards' browser code. The Worker never imports it: it serves the
 * scripts scripts/cards.ts bundles from it (src/mcp/cards/card-scripts.ts).
 * The cards take from src/ only the vocabulary, and types.
 */
const cardSources = import.meta.glob<string>("../cards/**/*.ts", { query: "?raw", import: "default", eager: true });
const CARDS_MAY_IMPORT = ["../src/orders/labels", "../src/proposals/status-labels"];

/** Lower layers first; a module may import from its own folder or from a lower layer. */
const LAYER: Record<string, number> = {
  core: 0,
  "bundle-stand-ins": 0,
  config: 1,
  audit: 1,
  orders: 2,
  http: 2,
  auth: 3,
  notify: 3,
  store: 4,
  provider: 4,
  proposals: 5,
  outbox: 5,
  synth: 5,
  runs: 6,
  account: 7,
  oauth: 8,
  mcp: 9,
  web: 9,
  "order-api": 9,
  "(entry)": 10,
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

const importsOf = (files: Record<string, string>) =>
  Object.entries(files).flatMap(([file, text]) =>
    [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) => ({
      file,
      target: resolve(file, match[1] ?? "").replace(/\.ts$/, ""),
    })),
  );
const imports = importsOf(sources);

/**
 * Import circles among the modules of `edges` (type imports included: a circle is read as one either way); none when
 * there are none.
 */
function circles(edges: readonly { file: string; target: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { file, target } of edges) {
    const from = file.replace(/\.ts$/, "");
    next.set(from, [...(next.get(from) ?? []), target]);
  }
  // Depth first; a module fully explored is not entered again, so this is linear in the imports.
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (module: string, path: string[]) => {
    const at = path.indexOf(module);
    if (at >= 0) {
      found.push(path.slice(at));
      return;
    }
    if (done.has(module)) return;
    for (const target of next.get(module) ?? []) visit(target, [...path, module]);
    done.add(module);
  };
  for (const module of next.keys()) visit(module, []);
  return found;
}

describe("architecture", () => {
  it("reads the source tree, the conformance entry and the cards", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(40);
    expect(imports.length).toBeGreaterThan(100);
    expect(Object.keys(conformanceSources)).toContain("../conformance/worker.ts");
    expect(Object.keys(cardSources)).toContain("../cards/host.ts");
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

  it("no import circle among src's modules, however short (each module can be read before what imports it)", () => {
    const planted = [
      { file: "a.ts", target: "b" },
      { file: "b.ts", target: "c" },
      { file: "c.ts", target: "a" },
      { file: "c.ts", target: "d" },
    ];
    expect(circles(planted)).toEqual([["a", "b", "c"]]);
    expect(circles(imports.filter(({ target }) => target.startsWith("../src/")))).toEqual([]);
  });

  it("no file name is used in two layers: a name says which module it is without its folder", () => {
    const layersOf = new Map<string, Set<number>>();
    for (const file of Object.keys(sources)) {
      const name = file.slice(file.lastIndexOf("/") + 1);
      layersOf.set(name, (layersOf.get(name) ?? new Set()).add(LAYER[folderOf(file)] ?? -1));
    }
    expect([...layersOf].filter(([, layers]) => layers.size > 1).map(([name]) => name)).toEqual([]);
  });

  it("nothing in src imports the bench: the floor Worker is never part of what is deployed", () => {
    const intoBench = imports
      .filter(({ target }) => target.startsWith("../bench/"))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(intoBench).toEqual([]);
  });

  it("conformance/ reaches src/ only through the entry and the MCP server's extension point, and src/ never reaches back", () => {
    const reached = importsOf(conformanceSources);
    expect(reached.map(({ target }) => target)).toEqual(expect.arrayContaining(CONFORMANCE_MAY_IMPORT));
    const outside = reached
      .filter(({ target }) => !target.startsWith("../conformance/") && !CONFORMANCE_MAY_IMPORT.includes(target))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(outside).toEqual([]);
    expect(imports.filter(({ target }) => target.startsWith("../conformance/"))).toEqual([]);
  });

  it("cards/ takes values from src/ only from the vocabulary (types from anywhere), and neither src/ nor conformance/ imports cards/", () => {
    const valueImports = Object.entries(cardSources).flatMap(([file, text]) =>
      [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']/gm)].map((match) => ({
        file,
        target: resolve(file, match[1] ?? "").replace(/\.ts$/, ""),
      })),
    );
    expect(valueImports.map(({ target }) => target)).toEqual(expect.arrayContaining(CARDS_MAY_IMPORT));
    const outside = valueImports
      .filter(({ target }) => !target.startsWith("../cards/") && !CARDS_MAY_IMPORT.includes(target))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(outside).toEqual([]);
    const intoCards = [...imports, ...importsOf(conformanceSources)].filter(({ target }) =>
      target.startsWith("../cards/"),
    );
    expect(intoCards).toEqual([]);
  });

  it("within src/, only the server factory imports the extension point, so no product module can install one", () => {
    const importers = imports.filter(({ target }) => target === "../src/mcp/server-extension").map(({ file }) => file);
    expect(importers).toEqual(["../src/mcp/server.ts"]);
  });

  it('every zod import names "zod/v4": the bundle leaves bare "zod" to agents\' stand-in (wrangler.toml [alias])', () => {
    const bare = Object.entries({ ...sources, ...conformanceSources })
      .filter(([, text]) => /from\s+["']zod["']/.test(text))
      .map(([file]) => file.replace("../src/", ""));
    expect(bare).toEqual([]);
  });

  it("the MCP product (tools, resources, prompts, cards, the server factory) imports nothing from the transport", () => {
    // Only the route and the adapter itself reach src/mcp/transport/: a ledger row there is deleted in one file.
    const MAY_IMPORT_TRANSPORT = (file: string) =>
      file === "../src/mcp/route.ts" || file.startsWith("../src/mcp/transport/");
    const intoTransport = imports
      .filter(({ target }) => target.startsWith("../src/mcp/transport/"))
      .filter(({ file }) => !MAY_IMPORT_TRANSPORT(file))
      .map(({ file, target }) => `${file} -> ${target}`);
    expect(intoTransport).toEqual([]);
    expect(
      imports.some(({ file, target }) => file === "../src/mcp/route.ts" && target.startsWith("../src/mcp/transport/")),
    ).toBe(true);
  });
});
