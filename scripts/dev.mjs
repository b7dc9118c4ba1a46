#!/usr/bin/env node
// `npm run dev`: apply D1 migrations to the local database, then start
// `wrangler dev`, and say once it answers where it is and what to try. Plain
// JavaScript on purpose, so that an old Node.js still gets a readable message
// instead of a syntax error.
// With faults in the built-in order API (docs/order-api.md, Fault injection):
//   npm run dev -- --var INTAKE_FAULTS:stall=1000ms/5s
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { Transform } from "node:stream";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { faultLines, intakeFaults } from "./lib/dev-faults.mjs";

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

const hasPort = extraArgs.some((arg) => arg === "--port" || arg.startsWith("--port="));
const port = optionValue("--port", "8787");

/**
 * Whether something already answers on the port: then wrangler would fail, after our banner had greeted the other
 * server.
 */
function portTaken(host, number) {
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(number) });
    const done = (taken) => {
      socket.destroy();
      resolve(taken);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.setTimeout(500, () => done(false));
  });
}
const listenHost = optionValue("--ip", "localhost");
const busy = (await Promise.all(["127.0.0.1", "::1", listenHost].map((host) => portTaken(host, port)))).some(Boolean);
if (busy) {
  console.error(
    `Port ${port} is already in use, probably by another \`npm run dev\`. Stop that one, or start this one on another port:\n  npm run dev -- --port ${Number(port) + 1}`,
  );
  process.exit(1);
}

// The banner repeats wrangler's version (and looks for updates) on every start.
// workerd would fetch a `Request.cf` sample from workers.cloudflare.com; offline
// that fails with two stack traces, and nothing here reads request.cf, so the
// local placeholder is used. A first run would ask about telemetry; this local
// server sends none. Each can be turned back on from the environment.
const quietEnv = {
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  ...process.env,
};

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

// Links the server hands out (approval pages) are built from PUBLIC_BASE_URL,
// never from a request's Host header, so tell it where this server listens.
const linkHost = optionValue("--ip", "localhost");
const hasBaseUrl = extraArgs.some((arg) => String(arg).startsWith("PUBLIC_BASE_URL:"));
const baseUrlArgs = hasBaseUrl ? [] : ["--var", `PUBLIC_BASE_URL:http://${linkHost}:${port}`];
// --test-scheduled: the cron trigger (outbox drain, proposal expiry) runs on demand here, at
// /cdn-cgi/local/scheduled, and wrangler no longer warns that it is not triggered by itself.
const scheduledArgs = extraArgs.includes("--test-scheduled") ? [] : ["--test-scheduled"];
// The caller's arguments come first, so a Worker entry among them (`npm run dev -- <entry> ...`) stays
// wrangler's positional `script` instead of being read as one more `--var` value.
// Its output passes through onceOnly(): wrangler prints the bindings table again each time a
// service binding's connection status changes (ORDER_API binds this Worker to itself).
const dev = spawn(
  wrangler,
  ["dev", ...extraArgs, ...(hasPort ? [] : ["--port", port]), ...baseUrlArgs, ...scheduledArgs],
  {
    cwd: root,
    stdio: ["inherit", "pipe", "pipe"],
    env: { ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}), ...quietEnv },
    shell: process.platform === "win32",
  },
);
dev.stdout.pipe(onceOnly()).pipe(process.stdout);
dev.stderr.pipe(process.stderr);
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

/** A file of the project's, or "" if it cannot be read. */
function projectFile(name) {
  try {
    return readFileSync(path.join(root, name), "utf8");
  } catch {
    return "";
  }
}

/** Every token .dev.vars defines, as [token, holder] pairs per map; none if it cannot be read. */
function demoTokens() {
  const vars = projectFile(".dev.vars");
  if (vars === "") return { operators: [], approvers: [] };
  const tokens = (name) => {
    const value = vars.match(new RegExp(`^${name}\\s*=\\s*'(.*)'\\s*$`, "m"))?.[1];
    try {
      return Object.entries(JSON.parse(value ?? "{}"));
    } catch {
      return [];
    }
  };
  return { operators: tokens("MCP_TOKENS"), approvers: tokens("APPROVER_TOKENS") };
}

/** One aligned line per token: account, role, who holds it, the token. */
function tokenLines(entries, nameOf, defaultRole) {
  const rows = entries.map(([token, holder]) => [holder.account, holder.role ?? defaultRole, nameOf(holder), token]);
  const widths = [0, 1, 2].map((column) => Math.max(0, ...rows.map((row) => row[column].length)));
  return rows.map(
    (row) => `    ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]) : cell)).join("  ")}`,
  );
}

/** What to do now that the server answers: where it is, who to be, and one command to try. */
function readyBlock(baseUrl) {
  const { operators, approvers } = demoTokens();
  const token = operators[0]?.[0] ?? "<an MCP token from .dev.vars>";
  const listed =
    operators.length + approvers.length === 0
      ? ["  Demo tokens: see .dev.vars"]
      : [
          "  MCP tokens, for an agent (from .dev.vars):",
          ...tokenLines(operators, (holder) => holder.operator, "operator"),
          "  Approver tokens, for a person at /approvals (from .dev.vars):",
          ...tokenLines(approvers, (holder) => holder.approver, "approver"),
        ];
  return [
    "",
    `Order Ops Edge is running at ${baseUrl}`,
    `  MCP        ${baseUrl}/mcp (Authorization: Bearer <MCP token>)`,
    `  Approvals  ${baseUrl}/approvals (sign in with an approver token)`,
    `  Cron       curl -s ${baseUrl}/cdn-cgi/local/scheduled runs the 1-minute job (webhook drain, proposal expiry) now`,
    ...faultLines(intakeFaults(extraArgs, projectFile(".dev.vars"), projectFile("wrangler.toml"))),
    ...listed,
    "  Try next:",
    `    curl -s ${baseUrl}/health`,
    `    claude mcp add --transport http order-ops ${baseUrl}/mcp --header "Authorization: Bearer ${token}"`,
    "",
  ].join("\n");
}

/**
 * A filter of wrangler's output that lets each bindings table through once:
 * a table that repeats one already shown (connection marks aside) is dropped,
 * with the "Connection status updated" line that comes before it.
 */
function onceOnly() {
  const shown = new Set();
  let pending = "";
  let table = null;
  const plain = (line) => stripVTControlCharacters(line).replace(/\s*\[(not )?connected\]/g, "");
  const lineOut = (line, push) => {
    if (table !== null) {
      table.push(line);
      if (plain(line).trim() !== "") return;
      const key = table.map(plain).join("\n");
      if (!shown.has(key)) push(`${table.join("\n")}\n`);
      shown.add(key);
      table = null;
      return;
    }
    if (/Connection status updated/.test(plain(line)) && shown.size > 0) return;
    if (/^Your Worker has access to the following bindings:/.test(plain(line))) {
      table = [line];
      return;
    }
    push(`${line}\n`);
  };
  return new Transform({
    transform(chunk, _encoding, callback) {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) lineOut(line, (text) => this.push(text));
      callback();
    },
    flush(callback) {
      if (table !== null) this.push(`${table.join("\n")}\n`);
      if (pending !== "") this.push(pending);
      callback();
    },
  });
}
