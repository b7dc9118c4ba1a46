// `npm run deploy:check`: what `wrangler deploy` would upload, without
// uploading it. Checks wrangler.toml for settings that would deploy and then
// run unsafely or be refused by Cloudflare (an ENVIRONMENT in [vars], an
// all-zero placeholder id), builds the bundle (`wrangler deploy --dry-run`), checks
// that worker-configuration.d.ts matches wrangler.toml (`wrangler types
// --check`) and that the committed card scripts are what cards/ builds now
// (`npm run cards -- --check`), prints the bundle size raw and gzipped
// (Workers limits apply to the gzipped size: 3 MiB on the free plan, 10 MiB
// on paid) and the startup CPU. Fails on any of those wrangler.toml problems, a broken
// build, stale types or card scripts, a conformance fixture in the bundle
// (they are for development only) or a bundle over the platform limit; the
// performance goals are printed beside the figures but never fail it. Needs
// no Cloudflare account and no network.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { unstable_readConfig } from "wrangler";
import { fixturesIn } from "./lib/bundle-contents.ts";
import {
  BUNDLE_GOAL_GZIP_BYTES,
  buildBundle,
  describeStartup,
  kib,
  root,
  STARTUP_GOAL_MS,
  startupCpuMs,
  wrangler,
} from "./lib/worker-figures.ts";
import { wranglerConfigProblems } from "./lib/wrangler-config-checks.ts";

const FREE_PLAN_LIMIT = 3 * 1024 * 1024;

function failAt(label: string, error: unknown): never {
  const output = (error as { stdout?: unknown; stderr?: unknown }) ?? {};
  process.stderr.write(`${String(output.stdout ?? "")}${String(output.stderr ?? "")}`);
  console.error(`\ndeploy:check failed at: ${label}`);
  process.exit(1);
}

console.log("$ check wrangler.toml");
const problems = wranglerConfigProblems(
  unstable_readConfig({ config: path.join(root, "wrangler.toml") }, { hideWarnings: true }),
);
for (const problem of problems) console.error(`error: ${problem}`);
if (problems.length > 0) {
  console.error("\ndeploy:check failed at: wrangler.toml");
  process.exit(1);
}

console.log("$ wrangler deploy --dry-run");
let modules: ReturnType<typeof buildBundle>;
try {
  modules = buildBundle();
} catch (error) {
  failAt("the dry-run build", error);
}

console.log("$ look for conformance fixtures in the bundle");
const shipped = fixturesIn(modules);
if (shipped.length > 0) {
  console.error(
    `deploy:check failed: the bundle contains conformance fixtures (${shipped.join(", ")}): they are for development only and must not be deployed`,
  );
  process.exit(1);
}

console.log("$ wrangler types --check");
try {
  execFileSync(wrangler, ["types", "--check"], { cwd: root, stdio: "inherit" });
} catch (error) {
  failAt("the generated types", error);
}

console.log("$ npm run cards -- --check");
try {
  execFileSync(
    process.execPath,
    [
      "--experimental-strip-types",
      "--disable-warning=ExperimentalWarning",
      path.join(root, "scripts", "cards.ts"),
      "--check",
    ],
    { cwd: root, stdio: "inherit" },
  );
} catch (error) {
  failAt("the built card scripts", error);
}

let raw = 0;
let gzip = 0;
console.log("\nbundle:");
for (const module of modules) {
  raw += module.rawBytes;
  gzip += module.gzipBytes;
  console.log(
    `  ${module.name.padEnd(24)} ${kib(module.rawBytes).padStart(12)} raw ${kib(module.gzipBytes).padStart(12)} gzip`,
  );
}
const bundleGoal = gzip <= BUNDLE_GOAL_GZIP_BYTES ? "met" : "NOT met";
console.log(
  `  ${"total".padEnd(24)} ${kib(raw).padStart(12)} raw ${kib(gzip).padStart(12)} gzip   goal <= ${kib(BUNDLE_GOAL_GZIP_BYTES)} ${bundleGoal}`,
);
if (gzip > FREE_PLAN_LIMIT) {
  console.error(
    `deploy:check failed: the gzipped bundle is over the Workers free-plan limit (${kib(FREE_PLAN_LIMIT)})`,
  );
  process.exit(1);
}

console.log("\n$ wrangler check startup");
try {
  const startup = startupCpuMs();
  console.log(
    `startup CPU: ${describeStartup(startup)}   goal <= ${STARTUP_GOAL_MS} ms ${startup.medianMs <= STARTUP_GOAL_MS ? "met" : "NOT met"}`,
  );
} catch (error) {
  failAt("the startup profile", error);
}

console.log("\ndeploy:check ok");
