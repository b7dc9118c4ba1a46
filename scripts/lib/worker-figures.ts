// What `wrangler deploy` would ship, measured without uploading anything:
// the bundle's size (Workers limits apply to the gzipped size) and the CPU
// its startup costs (`wrangler check startup`). Shared by deploy:check and
// bench so both report the same figures the same way.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { gzipSync } from "node:zlib";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const wrangler = path.join(root, "node_modules", ".bin", "wrangler");

/** Performance goals; figures above them are reported, not failed. */
export const BUNDLE_GOAL_GZIP_BYTES = 400 * 1024;
export const STARTUP_GOAL_MS = 30;

export interface BundleModule {
  readonly name: string;
  readonly rawBytes: number;
  readonly gzipBytes: number;
  /** The module's source, for checks on what ships (bundle-contents.ts). */
  readonly text: string;
}

export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** Sizes of the modules a dry-run build in `outdir` produced: what runs, not source maps. */
export function bundleModules(outdir: string): BundleModule[] {
  return filesUnder(outdir)
    .filter((file) => !file.endsWith(".map") && path.basename(file) !== "README.md")
    .map((file) => {
      const bytes = readFileSync(file);
      return {
        name: path.relative(outdir, file),
        rawBytes: bytes.byteLength,
        gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
        text: bytes.toString("utf8"),
      };
    });
}

/** Builds the deployable bundle into a temporary folder and returns its modules. */
export function buildBundle(): BundleModule[] {
  const outdir = mkdtempSync(path.join(tmpdir(), "order-ops-edge-bundle-"));
  try {
    execFileSync(wrangler, ["deploy", "--dry-run", "--outdir", outdir], { cwd: root, stdio: "pipe" });
    return bundleModules(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Startup CPU of one build, run after run: the figure and what it is taken from. */
export interface StartupFigure {
  /** The median of the runs, in milliseconds of active CPU. */
  readonly medianMs: number;
  readonly runsMs: readonly number[];
}

/** How many profiles a startup figure is the median of: one run on this shared machine moved from 22 to 103 ms. */
export const STARTUP_RUNS = 5;

/**
 * Active startup CPU in milliseconds, as `wrangler check startup` reports it
 * for the deployable build, as the median of `runs` profiles of one build.
 * Startup runs once per isolate, before the first request can be served, so
 * every cold start pays it. A single profile is about 10 to 30 samples of a
 * millisecond, and any moment the machine takes the CPU away lands in one of
 * them, so one run is not a figure.
 */
export function startupCpuMs(runs = STARTUP_RUNS): StartupFigure {
  const dir = mkdtempSync(path.join(tmpdir(), "order-ops-edge-startup-"));
  try {
    const bundle = path.join(dir, "worker.bundle");
    execFileSync(wrangler, ["deploy", "--dry-run", "--outfile", bundle], { cwd: root, stdio: "pipe" });
    const runsMs = Array.from({ length: runs }, () => {
      const output = execFileSync(
        wrangler,
        ["check", "startup", "--worker", bundle, "--outfile", path.join(dir, "startup.cpuprofile")],
        { cwd: root, stdio: "pipe", encoding: "utf8" },
      );
      const active = /Active:\s*([\d.]+)\s*ms/.exec(stripVTControlCharacters(output));
      if (!active?.[1]) throw new Error(`wrangler check startup printed no "Active" figure:\n${output}`);
      return Number(active[1]);
    });
    const sorted = [...runsMs].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    const medianMs =
      sorted.length % 2 === 1
        ? (sorted[middle] ?? Number.NaN)
        : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
    return { medianMs, runsMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figure as both scripts print it: the median, then every run it was taken from. */
export function describeStartup({ medianMs, runsMs }: StartupFigure): string {
  return `${medianMs.toFixed(1)} ms active, median of ${runsMs.length} (${runsMs.map((ms) => ms.toFixed(1)).join(" ")})`;
}
