// Runs in Node before the Workers-runtime tests: lists the repository's files
// and folders and package.json's scripts, which the documentation checks hold
// every link and named path against (the runtime itself cannot read the disk).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Installed, generated or local state, never something the documentation points a reader to. */
const SKIPPED = new Set(["node_modules", ".git", ".wrangler"]);

function walk(relative: string, into: string[]): void {
  for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      into.push(`${child}/`);
      walk(child, into);
    } else {
      into.push(child);
    }
  }
}

export default function setup(project: TestProject): void {
  const paths: string[] = [];
  walk("", paths);
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
  };
  project.provide("repoFiles", { paths, scripts: Object.keys(manifest.scripts ?? {}) });
}
