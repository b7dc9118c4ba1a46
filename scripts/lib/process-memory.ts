// The workerd processes under one `wrangler dev` (Linux /proc only): their
// resident memory and CPU time. workerd runs the Worker, its Durable Objects
// and local D1 in one process, so this is the ceiling of what the account
// object can be holding, and the whole cost of what a request did.
import { readdir, readFile } from "node:fs/promises";

interface ProcessInfo {
  readonly parent: number;
  readonly name: string;
}

async function processTable(): Promise<Map<number, ProcessInfo>> {
  const table = new Map<number, ProcessInfo>();
  for (const entry of await readdir("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      // The name is in parentheses and may hold spaces; the parent pid follows the state after it.
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      const parent = Number(stat.slice(close + 2).split(" ")[1]);
      table.set(pid, { parent, name });
    } catch {
      // the process ended while we looked
    }
  }
  return table;
}

/** Every workerd process descended from `root` (wrangler's proxy and the runtime); empty where /proc is missing. */
export async function workerdProcesses(root: number | undefined): Promise<number[]> {
  if (root === undefined) return [];
  let table: Awaited<ReturnType<typeof processTable>>;
  try {
    table = await processTable();
  } catch {
    return [];
  }
  const descends = (pid: number): boolean => {
    for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
      if (current === root) return true;
      current = table.get(current)?.parent ?? 0;
    }
    return false;
  };
  return [...table].filter(([pid, info]) => info.name.startsWith("workerd") && descends(pid)).map(([pid]) => pid);
}

/** Sum of VmRSS over every workerd process descended from `root`; 0 where /proc is missing. */
export async function workerdRssBytes(root: number | undefined): Promise<number> {
  let total = 0;
  for (const pid of await workerdProcesses(root)) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    total += Number(kb ?? 0) * 1024;
  }
  return total;
}

/** Clock ticks per second of /proc/<pid>/stat's CPU fields: USER_HZ, 100 on every Linux build that matters. */
const USER_HZ = 100;

/** User plus system CPU the process (all its threads) has used so far, in ms; undefined without /proc. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat; the slice starts at field 3.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}
