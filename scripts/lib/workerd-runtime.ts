// workerd's own ports inside one `wrangler dev` (Linux /proc only). wrangler
// answers on its port through a proxy (a second workerd process, with its own
// router) that forwards to the runtime's entry port; a deployment has no such
// proxy, so figures taken on the entry port show the runtime's own cost. The
// runtime's inspector lists every isolate by name, which wrangler's inspector
// proxy (attached to one Worker, whichever loaded last) does not.
import { readdir, readFile, readlink } from "node:fs/promises";
import { workerdProcesses } from "./process-memory.ts";

export interface WorkerdRuntime {
  /** The process that runs the Workers, their objects and local D1. */
  readonly pid: number;
  /** Its entry port, where wrangler's proxy sends every request. */
  readonly innerUrl: string;
  /** Its DevTools port; targets are named `core:user:<worker name>`. */
  readonly inspectorPort: number;
}

/** TCP ports a process listens on: its socket inodes matched against the LISTEN rows of its network table. */
async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const rows = (await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "")).split("\n").slice(1);
    for (const row of rows) {
      const cells = row.trim().split(/\s+/);
      // local_address is "ADDR:PORT" in hex, st "0A" is LISTEN, the inode is the tenth column.
      const [, local, , state] = cells;
      if (state !== "0A" || !inodes.has(cells[9] ?? "")) continue;
      ports.push(Number.parseInt(local?.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}

async function answers(url: string, check: (body: unknown) => boolean): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok && check(await response.json());
  } catch {
    return false;
  }
}

const isHealth = (body: unknown) => (body as { status?: unknown } | null)?.status === "ok";
const listsWorkers = (body: unknown) =>
  Array.isArray(body) && body.some((target) => String((target as { id?: unknown }).id).startsWith("core:user:"));

/**
 * Finds the runtime among the workerd processes under `root` (the dev
 * server's process), skipping wrangler's own port: the one whose entry port
 * answers the project's /health. Throws where it cannot, so a figure is never
 * silently taken through the proxy instead.
 */
export async function findWorkerdRuntime(root: number | undefined, publicPort: number): Promise<WorkerdRuntime> {
  for (const pid of await workerdProcesses(root)) {
    let innerUrl: string | undefined;
    let inspectorPort: number | undefined;
    for (const port of await listeningPorts(pid)) {
      if (port === publicPort) continue;
      const base = `http://127.0.0.1:${port}`;
      if (innerUrl === undefined && (await answers(`${base}/health`, isHealth))) innerUrl = base;
      else if (inspectorPort === undefined && (await answers(`${base}/json`, listsWorkers))) inspectorPort = port;
    }
    if (innerUrl !== undefined && inspectorPort !== undefined) return { pid, innerUrl, inspectorPort };
  }
  throw new Error(
    "found no workerd process under this wrangler dev with an entry port answering /health (this needs Linux /proc)",
  );
}
