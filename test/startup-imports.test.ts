/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

// What a cold isolate evaluates before its first request is src/index.ts and
// everything it imports statically, transitively: the Durable Object classes
// it exports count too. Each surface is loaded by a dynamic import() on its
// first request instead (src/http/lazy-routes.ts). One static import of a
// small helper from a module that builds zod schemas put zod and the run
// schemas back into every cold start (53 ms against 26-33 ms; issue 44), so
// this walks the static graph and names the packages it reaches.

const sources = import.meta.glob<string>("../src/**/*.ts", { query: "?raw", import: "default", eager: true });

/** Imports and re-exports that are evaluated with the module: not `import type`, not `import()`. */
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s*)?["']([^"']+)["']/gm;

function resolve(from: string, specifier: string): string {
  const stack = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") stack.pop();
    else if (part !== ".") stack.push(part);
  }
  const path = stack.join("/");
  return /\.\w+$/.test(specifier) ? path : `${path}.ts`;
}

/** The source files and the packages evaluated at startup, from src/index.ts. */
function startupGraph(): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = ["../src/index.ts"];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    // Data (the seed's JSON) is evaluated too, but imports nothing.
    if (!file.endsWith(".ts")) continue;
    const text = sources[file];
    if (text === undefined) throw new Error(`${file} is imported but was not found`);
    for (const [, specifier = ""] of text.matchAll(STATIC_IMPORT)) {
      if (specifier.startsWith(".")) pending.push(resolve(file, specifier));
      else packages.add(specifier);
    }
  }
  return { files: [...files].map((file) => file.replace("../", "")).sort(), packages: [...packages].sort() };
}

describe("what a cold start evaluates", () => {
  const { files, packages } = startupGraph();

  it("finds the entry and the Durable Object classes it exports", () => {
    expect(files).toEqual(
      expect.arrayContaining(["src/index.ts", "src/account/account-agent.ts", "src/account/run-shard.ts"]),
    );
  });

  it("reaches only the router, the Agent base class and the runtime: no zod, MCP SDK or OAuth provider", () => {
    // agents is the AccountAgent's base class, so it cannot wait; wrangler.toml [alias] keeps its MCP client and zod
    // out.
    expect(packages.filter((name) => !name.startsWith("hono/"))).toEqual(["agents", "cloudflare:workers", "hono"]);
  });

  it("loads no node: module but the ones agents needs anyway: esbuild hoists every node: import to the bundle's top, lazy module or not", () => {
    // token-maps.ts imported node:crypto for one hash; workerd built node:crypto at every cold start (3 ms of CPU).
    const nodeImports = Object.entries(sources).flatMap(([file, text]) =>
      [...text.matchAll(STATIC_IMPORT)]
        .map(([, specifier = ""]) => specifier)
        .filter((specifier) => specifier.startsWith("node:"))
        .map((specifier) => `${file.replace("../", "")} -> ${specifier}`),
    );
    // agents imports node:async_hooks at its top level, so the OAuth server's import costs nothing more.
    expect(nodeImports).toEqual(["src/oauth/authorization-server.ts -> node:async_hooks"]);
  });

  it("builds no zod schema and parses no seed data: no module in the graph imports zod or JSON", () => {
    const withZod = files.filter((file) => /from\s*["']zod\/v4["']/.test(sources[`../${file}`] ?? ""));
    expect(withZod).toEqual([]);
    expect(files.filter((file) => !file.endsWith(".ts"))).toEqual([]);
  });
});
