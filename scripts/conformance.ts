// `npm run conformance`: starts `wrangler dev` on free ports with the
// development entry conformance/worker.ts, which adds the conformance
// fixtures, and switches them on (CONFORMANCE_FIXTURES, development only);
// puts a localhost proxy in front that adds the bearer token (the suite has no
// header option); and runs the official MCP conformance suite's server scenarios at
// protocol 2026-07-28 and at 2025-11-25. Exits non-zero if either run fails.
// Results (one checks.json per scenario) are kept in a temporary folder.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startDevServer } from "./lib/dev-server.ts";

const TOKEN = "acme-dev-token";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const suite = path.join(root, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

/**
 * Each revision's run, and the scenarios expected to fail there. Only 2025
 * has any: see scripts/conformance-expected-failures-2025-11-25.yml for why.
 */
const RUNS = [
  { revision: "2026-07-28", expectedFailures: undefined },
  {
    revision: "2025-11-25",
    expectedFailures: path.join(root, "scripts", "conformance-expected-failures-2025-11-25.yml"),
  },
] as const;

/**
 * Forwards every request to the dev server unchanged (Host and Origin
 * included, so the DNS-rebinding scenario reaches the Worker's own check),
 * adding the bearer token, and streams the answer back as it comes.
 */
function startAuthProxy(target: URL): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: request.url,
        method: request.method,
        headers: { ...request.headers, authorization: `Bearer ${TOKEN}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    response.on("close", () => upstream.destroy());
    request.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function runSuite(
  url: string,
  revision: string,
  outputDir: string,
  expectedFailures: string | undefined,
): Promise<number> {
  const args = [suite, "server", "--url", url, "--requirements", revision, "-o", outputDir];
  if (expectedFailures) args.push("--expected-failures", expectedFailures);
  console.log(`\n=== conformance at ${revision}: conformance ${args.slice(1).join(" ")}`);
  const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

const results = mkdtempSync(path.join(tmpdir(), "order-ops-conformance-"));
const dev = await startDevServer({ entry: "conformance/worker.ts", vars: { CONFORMANCE_FIXTURES: "on" } });
let proxy: http.Server | undefined;
const verdicts: string[] = [];
let failed = false;
try {
  proxy = await startAuthProxy(new URL(dev.url));
  // localhost, not 127.0.0.1: the DNS-rebinding scenario only runs against a localhost URL.
  const url = `http://localhost:${(proxy.address() as AddressInfo).port}/mcp`;
  for (const run of RUNS) {
    const code = await runSuite(url, run.revision, path.join(results, run.revision), run.expectedFailures);
    failed ||= code !== 0;
    verdicts.push(`${run.revision}: ${code === 0 ? "passed" : `FAILED (exit ${code})`}`);
  }
} catch (error) {
  failed = true;
  verdicts.push(`conformance run crashed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  // Open SSE streams would keep close() waiting; they are done with.
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await dev.stop();
}
console.log(`\nconformance results are in ${results}`);
for (const verdict of verdicts) console.log(`conformance ${verdict}`);
process.exit(failed ? 1 : 0);
