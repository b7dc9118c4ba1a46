#!/usr/bin/env node
// `npm run dev`: apply D1 migrations to the local database, then start
// `wrangler dev`, and say once it answers where it is and what to try. Plain
// JavaScript on purpose, so that an old Node.js still gets a readable message
// instead of a syntax error.
// With faults in the built-in order API (docs/order-api.md, Fault injection):
//   npm run dev -- --var INTAKE_FAULTS:stall=1000ms/5s
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

// The banner repeats wrangler's version (and looks for updates) on every start.
// workerd would fetch a `Request.cf` sample from workers.cloudflare.com; offline
// that fails with two stack traces, and nothing here reads request.cf, so the
// local placeholder is used. Either can be turned back on from the environment.
const quietEnv = { WRANGLER_HIDE_BANNER: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env };

// The cards' scripts are committed (src/mcp/cards/card-scripts.ts); a card
// edited in cards/ since is rebuilt here, so the server serves its source.
const cards = spawnSync(
  process.execPath,
  ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", path.join(root, "scripts", "cards.ts")],
  {
    cwd: root,
    stdio: "inherit",
  },
);
if (cards.status !== 0) {
  console.error("Building the MCP Apps cards from cards/ failed; the output is above.");
  process.exit(cards.status ?? 1);
}

// wrangler prints a table of every migration before and after each one it
// applies; one line per migration says the same. stdin is not a terminal here,
// so wrangler applies without asking for confirmation.
const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", ...persistArgs], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
  env: quietEnv,
  shell: process.platform === "win32",
});
if (migrate.status !== 0) {
  process.stderr.write(`${migrate.stdout ?? ""}${migrate.stderr ?? ""}`);
  console.error("Applying the local D1 migrations failed; wrangler's output is above.");
  process.exit(migrate.status ?? 1);
}
for (const line of migrationLines(migrate.stdout ?? "")) console.log(line);

/** One line per migration step, from the status table wrangler printed last for each. */
function migrationLines(output) {
  const status = new Map();
  for (const match of output.matchAll(/^\W*(\d+_[\w.-]+\.sql)\s*│\s*([^\s│]+)\s*│\s*$/gmu))
    status.set(match[1], match[2]);
  if (status.size > 0)
    return [...status].map(([name, mark]) => `D1 migration ${name}: ${mark === "✅" ? "applied" : mark}`);
  const files = readdirSync(path.join(root, "migrations")).filter((name) => name.endsWith(".sql")).length;
  return [`D1 migrations: all ${files} already applied to the local database`];
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
  env: quietEnv,
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
      } else if (response.ok) {
        console.log(readyBlock(`http://${linkHost}:${port}`));
      }
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
void checkConfiguration();

/** The accounts .dev.vars defines, each with its MCP token and approver token; none if it cannot be read. */
function demoAccounts() {
  let vars = "";
  try {
    vars = readFileSync(path.join(root, ".dev.vars"), "utf8");
  } catch {
    return [];
  }
  const tokens = (name) => {
    const value = vars.match(new RegExp(`^${name}\\s*=\\s*'(.*)'\\s*$`, "m"))?.[1];
    try {
      return Object.entries(JSON.parse(value ?? "{}"));
    } catch {
      return [];
    }
  };
  const approvers = tokens("APPROVER_TOKENS");
  return tokens("MCP_TOKENS").map(([token, holder]) => ({
    account: holder.account,
    token,
    approverToken: approvers.find(([, approver]) => approver.account === holder.account)?.[0],
  }));
}

/** What to do now that the server answers: where it is, who to be, and one command to try. */
function readyBlock(baseUrl) {
  const accounts = demoAccounts();
  const width = Math.max(0, ...accounts.map((a) => a.account.length));
  const tokenWidth = Math.max(0, ...accounts.map((a) => a.token.length));
  const tokenLines = accounts.map(
    (a) =>
      `    ${a.account.padEnd(width)}  MCP token ${a.token.padEnd(tokenWidth)}${a.approverToken ? `  approver token ${a.approverToken}` : ""}`,
  );
  const token = accounts[0]?.token ?? "<an MCP token from .dev.vars>";
  return [
    "",
    `Order Ops Edge is running at ${baseUrl}`,
    `  MCP        ${baseUrl}/mcp (Authorization: Bearer <MCP token>)`,
    `  Approvals  ${baseUrl}/approvals (sign in with an approver token)`,
    ...(tokenLines.length > 0 ? ["  Demo accounts, from .dev.vars:", ...tokenLines] : ["  Demo tokens: see .dev.vars"]),
    "  Try next:",
    `    curl -s ${baseUrl}/health`,
    `    claude mcp add --transport http order-ops ${baseUrl}/mcp --header "Authorization: Bearer ${token}"`,
    "",
  ].join("\n");
}
