// `npm run deploy:check`: what `wrangler deploy` would upload, without
// uploading it. Builds the bundle (`wrangler deploy --dry-run`), checks that
// worker-configuration.d.ts matches wrangler.toml (`wrangler types --check`),
// and prints the bundle size raw and gzipped (Workers limits apply to the
// gzipped size: 3 MiB on the free plan, 10 MiB on paid). Exits non-zero on
// any failure. Needs no Cloudflare account and no network.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const FREE_PLAN_LIMIT = 3 * 1024 * 1024;

function step(label: string, args: string[]): void {
  console.log(`\n$ wrangler ${args.join(" ")}`);
  try {
    execFileSync(wrangler, args, { cwd: root, stdio: "inherit" });
  } catch {
    console.error(`\ndeploy:check failed at: ${label}`);
    process.exit(1);
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

const outdir = mkdtempSync(path.join(tmpdir(), "order-ops-edge-bundle-"));
try {
  step("the dry-run build", ["deploy", "--dry-run", "--outdir", outdir]);
  step("the generated types", ["types", "--check"]);
  // Count what runs: not source maps, nor the README wrangler writes beside the bundle.
  const modules = filesUnder(outdir).filter((file) => !file.endsWith(".map") && path.basename(file) !== "README.md");
  let raw = 0;
  let gzip = 0;
  console.log("\nbundle:");
  for (const file of modules) {
    const bytes = readFileSync(file);
    const zipped = gzipSync(bytes, { level: 9 }).byteLength;
    raw += bytes.byteLength;
    gzip += zipped;
    console.log(`  ${path.relative(outdir, file).padEnd(24)} ${kib(bytes.byteLength).padStart(12)} raw ${kib(zipped).padStart(12)} gzip`);
  }
  console.log(`  ${"total".padEnd(24)} ${kib(raw).padStart(12)} raw ${kib(gzip).padStart(12)} gzip (free-plan limit ${kib(FREE_PLAN_LIMIT)} gzip)`);
  if (gzip > FREE_PLAN_LIMIT) {
    console.error("deploy:check failed: the gzipped bundle is over the Workers free-plan limit");
    process.exit(1);
  }
  console.log("\ndeploy:check ok");
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
