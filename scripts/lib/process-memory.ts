// Resident memory of the workerd processes under one `wrangler dev` (Linux
// /proc only). workerd runs the Worker and its Durable Objects in one process,
// so this is the ceiling of what the account object can be holding.
import { readdir, readFile } from "node:fs/promises";

async function processTable(): Promise<Map<number, { parent: number; name: string }>> {
  const table = new Map<number, { parent: number; name: string }>();
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

/** Sum of VmRSS over every workerd process descended from `root`; 0 where /proc is missing. */
export async function workerdRssBytes(root: number | undefined): Promise<number> {
  if (root === undefined) return 0;
  let table;
  try {
    table = await processTable();
  } catch {
    return 0;
  }
  const descends = (pid: number): boolean => {
    for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
      if (current === root) return true;
      current = table.get(current)?.parent ?? 0;
    }
    return false;
  };
  let total = 0;
  for (const [pid, info] of table) {
    if (!info.name.startsWith("workerd") || !descends(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    total += Number(kb ?? 0) * 1024;
  }
  return total;
}
