import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// A green run prints nothing a reader must learn to ignore. wrangler's "Using secrets defined in
// .dev.vars" (once per test file) is left out below warnings. Dependencies are loaded without
// their published source maps: the MCP SDK's and cron-schedule's name source files the packages
// do not ship, and vite warned of each one; a stack trace into a dependency shows its built code.
process.env.WRANGLER_LOG ??= "warn";
const withoutDependencySourceMaps: Plugin = {
  name: "without-dependency-source-maps",
  enforce: "pre",
  load(id) {
    const file = id.split("?")[0] ?? id;
    if (!/\/node_modules\/.+\.m?js$/.test(file) || !existsSync(file)) return null;
    return { code: readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"), map: null };
  },
};

/** The tests that watch the outbox's real local queue deliver: the one project whose Worker has webhooks configured. */
const QUEUE_TESTS = "test/queue/**/*.test.ts";
/**
 * Test files that need the database exactly as the migrations and the demo
 * data leave it, break it on purpose, or install something process-wide: each
 * runs in a runtime of its own. Every other file shares one runtime (and its
 * storage) with the files before it, which saves starting workerd and loading
 * the product once per file, most of the suite's time; those files make their
 * own orders or read only what no other file changes.
 */
const ALONE_TESTS = [
  "test/store/invariants.test.ts",
  "test/store/audit-invariants.test.ts",
  "test/mcp/audit-log-paging.test.ts",
  "test/web/audit/export-routes.test.ts",
  "test/web/audit/approval-app-export.test.ts",
  "test/order-api/replay-comparison.test.ts",
  "test/store/seed-loader.test.ts",
  "test/store/demo-data.test.ts",
  "test/store/demo-data.security.test.ts",
  "test/migrations/account-scoped-keys.test.ts",
  "test/mcp/exception-queue.test.ts",
  "test/mcp/server-extension.test.ts",
  // These load conformance/worker.ts, which installs its fixtures as the server extension.
  "test/conformance/fixtures.test.ts",
  "test/conformance/prompts.test.ts",
  "test/conformance/entry-exports.test.ts",
  "test/mcp/credential-isolation.test.ts",
  // What a model reads of the exception queue depends on every order in it: the demo data as the migrations leave it.
  "test/mcp/journey-budget.test.ts",
  // These crash an account's object on purpose (simulateRestart), and the seal tests wait on that object's sealer:
  // a crash or a busy alarm left by another file must not stand in their way.
  "test/account/traffic-runs.test.ts",
  "test/account/mcp-tasks.test.ts",
  "test/mcp/tasks.test.ts",
  "test/mcp/tasks-client.test.ts",
  "test/account/capacity-searches.test.ts",
  "test/account/interrupted-batch.test.ts",
  "test/account/synthetic-budget.security.test.ts",
  "test/account/audit-sealer.test.ts",
  "test/order-api/audit-seal-request.test.ts",
];
/**
 * Tests that start processes (the deploy script against a fake wrangler), which the Workers runtime cannot: plain Node.
 */
const NODE_TESTS = "test/node/**/*.test.ts";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  const project = (name: string, include: string[], exclude: string[], webhooks: boolean, isolate = true) => ({
    plugins: [
      withoutDependencySourceMaps,
      cloudflareTest(({ inject }) => {
        const receiver = inject("webhookReceiver");
        return {
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            // RUN_SHARD_RATE is low here so that any run above 4 orders a second fans out over
            // several RunShard objects: the merge of shards is exercised by every such test.
            // FOUR_EYES_OVER_CENTS is above every seed and default test order ($1,000): a test that wants
            // two approvers makes an order worth more.
            bindings: {
              TEST_MIGRATIONS: migrations,
              PUBLIC_BASE_URL: "http://localhost",
              RUN_SHARD_RATE: "4",
              // The deployment's cap, which the contract tests advertise and refuse over; .dev.vars
              // raises it for `npm run dev` so the documented examples run (test/docs/examples.test.ts).
              MAX_RUN_RATE: "50",
              FOUR_EYES_OVER_CENTS: "100000",
              // Files share one runtime, so acme's open proposals add up across files; the cap itself is tested with a
              // configuration of its own (test/proposals/service-cap-and-clock.test.ts).
              MAX_OPEN_PROPOSALS: "10000",
              // Only here does the Worker itself (its queue consumer included) deliver to the
              // local receiver; elsewhere tests hand the consumer a configuration of their own.
              ...(webhooks
                ? {
                    NOTIFY_WEBHOOK_URL: `${receiver.url}/approvals/ok/queue`,
                    NOTIFY_WEBHOOK_SECRET: receiver.secrets.approvals,
                    DOWNSTREAM_WEBHOOK_URL: `${receiver.url}/downstream/ok/queue`,
                    DOWNSTREAM_WEBHOOK_SECRET: receiver.secrets.downstream,
                  }
                : {}),
            },
            // An empty database for tests that apply the migrations step by step.
            d1Databases: ["MIGRATION_SCRATCH_DB"],
            // A real rate-limiting binding with a tiny limit, for test/http/rate-limit.test.ts and
            // oauth-rate-limit.test.ts.
            ratelimits: { TINY_RATE_LIMITER: { namespace_id: "9001", simple: { limit: 2, period: 60 } } },
          },
        };
      }),
    ],
    test: {
      name,
      include,
      exclude,
      isolate,
      setupFiles: ["./test/setup/apply-migrations.ts"],
      globalSetup: [
        "./test/global/second-order-api.ts",
        "./test/global/webhook-receiver.ts",
        "./test/global/repo-files.ts",
        "./test/global/expected-runtime-logs.ts",
      ],
    },
  });
  return {
    test: {
      // Vitest's default leaves one core to the main process; here most of the work is in workerd's own processes, and
      // two workers finish a 2-core machine's run about a third sooner than one.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      projects: [
        project("workers", ["test/**/*.test.ts"], [QUEUE_TESTS, NODE_TESTS, ...ALONE_TESTS], false, false),
        project("alone", ALONE_TESTS, [], false),
        project("queue", [QUEUE_TESTS], [], true),
        { test: { name: "node", include: [NODE_TESTS], environment: "node", testTimeout: 60_000 } },
      ],
    },
  };
});
