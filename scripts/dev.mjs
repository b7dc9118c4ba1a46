#!/usr/bin/env node
// `npm run dev`: apply D1 migrations to the local database, then start
// `wrangler dev`. Plain JavaScript on purpose, so that an old Node.js still gets
// a readable message instead of a syntax error.
// With faults in the built-in order API (README, Fault injection):
//   npm run dev -- --var INTAKE_FAULTS:stall=1000ms/5s
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

function optionValue(name, fallback) {
  const inline = extraArgs.find((arg) => arg.startsWith(`${name}=`));
  if (inline) return inline.slice(name.length + 1);
  const index = extraArgs.indexOf(name);
  return index >= 0 && extraArgs[index + 1] !== undefined ? extraArgs[index + 1] : fallback;
}
const persistTo = optionValue("--persist-to", undefined);
const persistArgs = persistTo === undefined ? [] : ["--persist-to", persistTo];

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
const port = optionValue("--port", "8787");
// Links the server hands out (approval pages) are built from PUBLIC_BASE_URL,
// never from a request's Host header, so tell it where this server listens.
const linkHost = optionValue("--ip", "localhost");
const hasBaseUrl = extraArgs.some((arg) => String(arg).startsWith("PUBLIC_BASE_URL:"));
const baseUrlArgs = hasBaseUrl ? [] : ["--var", `PUBLIC_BASE_URL:http://${linkHost}:${port}`];
// The caller's arguments come first, so a Worker entry among them (`npm run dev -- <entry> ...`) stays
// wrangler's positional `script` instead of being read as one more `--var` value.
const dev = spawn(wrangler, ["dev", ...extraArgs, ...(hasPort ? [] : ["--port", port]), ...baseUrlArgs], {
  cwd: root,
  stdio: "inherit",
  shell: process.platform === "win32",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// Validate the configuration as soon as the server answers, instead of on the
// first real request: a bad .dev.vars value is reported right here.
async function checkConfiguration() {
  const host = optionValue("--ip", "127.0.0.1");
  for (let attempt = 0; attempt < 240 && dev.exitCode === null; attempt++) {
    try {
      const response = await fetch(`http://${host}:${port}/api/health`);
      if (response.status === 503) {
        const body = await response.json().catch(() => ({}));
        console.error(`\n\x1b[31mConfiguration problem:\x1b[0m ${body.message ?? "see the wrangler output"}\n`);
      }
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
void checkConfiguration();
