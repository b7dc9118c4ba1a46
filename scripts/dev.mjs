#!/usr/bin/env node
// `npm run dev`: apply D1 migrations to the local database, then start
// `wrangler dev`. Plain JavaScript on purpose, so that an old Node.js still gets
// a readable message instead of a syntax error.
import { spawnSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Order Ops Edge needs Node.js 22.12 or newer (wrangler 4 refuses older ones); this is ${process.version}.\n` +
      "Install it with nvm (`nvm install` reads .nvmrc) or, without nvm:\n" +
      '  npm install --prefix "$HOME/.node22" node@22 && export PATH="$HOME/.node22/node_modules/.bin:$PATH"',
  );
  process.exit(1);
}

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const wrangler = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
const extraArgs = process.argv.slice(2);
const persistIndex = extraArgs.indexOf("--persist-to");
const persistArgs = persistIndex >= 0 ? extraArgs.slice(persistIndex, persistIndex + 2) : [];

// stdin is not a terminal here, so wrangler applies without asking for confirmation.
const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", ...persistArgs], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
  shell: process.platform === "win32",
});
if (migrate.status !== 0) {
  console.error("Applying the local D1 migrations failed; see the wrangler output above.");
  process.exit(migrate.status ?? 1);
}

const hasPort = extraArgs.some((arg) => arg === "--port" || arg.startsWith("--port="));
const dev = spawn(wrangler, ["dev", ...(hasPort ? [] : ["--port", "8787"]), ...extraArgs], {
  cwd: root,
  stdio: "inherit",
  shell: process.platform === "win32",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
