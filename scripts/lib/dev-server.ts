// Starts `wrangler dev` on free ports with a throwaway local state directory,
// waits until /health answers, and stops it again. Used by smoke and bench so
// they never touch the developer's own `npm run dev` data.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface DevServer {
  readonly url: string;
  /** Where the local D1 and Durable Object state lives. */
  readonly stateDir: string;
  /** The process id of `npm run dev`'s node process, the root of wrangler's and workerd's process tree. */
  readonly pid: number | undefined;
  /** wrangler's DevTools port for the Worker (scripts/lib/inspector.ts). */
  readonly inspectorPort: number;
  /** Stops the server; the state is removed unless it was passed in. */
  stop(): Promise<void>;
  /** Kills wrangler and workerd at once (SIGKILL), as a crash would; the state stays. */
  crash(): Promise<void>;
}

export interface DevServerOptions {
  readonly quiet?: boolean;
  /** Reuse this state directory (and keep it): a restart sees everything the last run wrote. */
  readonly stateDir?: string;
  /** Extra `wrangler dev --var NAME:value` settings. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Extra `wrangler dev` arguments, such as `--minify=false` for readable profiles. */
  readonly args?: readonly string[];
  /**
   * A Worker entry to serve instead of wrangler.toml's `main` (a development
   * entry such as conformance/worker.ts); wrangler.toml's bindings still apply.
   */
  readonly entry?: string;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early (code ${child.exitCode}):\n${log()}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer /health within ${timeoutMs} ms:\n${log()}`);
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = await freePort();
  const inspectorPort = await freePort();
  const ownsState = options.stateDir === undefined;
  const stateDir = options.stateDir ?? mkdtempSync(path.join(tmpdir(), "order-ops-edge-"));
  const varArgs = Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      "scripts/dev.mjs",
      // First, so it stays wrangler's positional `script`: after an array option such as `--var` it would be read as
      // one more value.
      ...(options.entry === undefined ? [] : [options.entry]),
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      stateDir,
      "--show-interactive-dev-session=false",
      ...varArgs,
      ...(options.args ?? []),
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: process.platform !== "win32" },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 20_000) output = output.slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  if (!options.quiet) process.stderr.write(`starting wrangler dev on ${url} (state in ${stateDir})\n`);

  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      // The whole process group, so workerd goes down with wrangler.
      if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  };
  const stop = async () => {
    await signal("SIGTERM");
    if (ownsState) rmSync(stateDir, { recursive: true, force: true });
  };
  const crash = () => signal("SIGKILL");

  try {
    await waitForHealth(url, child, () => output, 90_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stateDir, pid: child.pid, inspectorPort, stop, crash };
}
