import { describe, expect, it } from "vitest";
import { type DeployedConfig, wranglerConfigProblems } from "../../scripts/lib/wrangler-config-checks.ts";

// deploy:check's own look at wrangler.toml: an ENVIRONMENT in [vars] fails it,
// and so does an all-zero placeholder id, which Cloudflare would refuse. No id
// at all is how the committed file is: wrangler deploy creates or links the
// resource.

const COMMITTED: DeployedConfig = {
  vars: { MAX_BATCH: "100", RATE_LIMITS: "on" },
  d1_databases: [{ binding: "DB" }],
  kv_namespaces: [{ binding: "OAUTH_KV" }],
};

describe("wranglerConfigProblems", () => {
  it("bindings without ids, as committed, have nothing to say", () => {
    expect(wranglerConfigProblems(COMMITTED)).toEqual([]);
  });

  it("nor do real ids, as the Deploy to Cloudflare button writes them into a fork", () => {
    const withIds: DeployedConfig = {
      ...COMMITTED,
      d1_databases: [{ binding: "DB", database_id: "2f6c1a3e-8b1d-4c7a-9e0f-5d4b3a2c1e0f" }],
      kv_namespaces: [{ binding: "OAUTH_KV", id: "9a8b7c6d5e4f30211203f4e5d6c7b8a9" }],
    };
    expect(wranglerConfigProblems(withIds)).toEqual([]);
  });

  it.each(["development", "production"])(
    "fails when [vars] sets ENVIRONMENT (%s): it belongs in .dev.vars only",
    (value) => {
      const problems = wranglerConfigProblems({ ...COMMITTED, vars: { ...COMMITTED.vars, ENVIRONMENT: value } });
      expect(problems).toEqual([
        expect.stringMatching(new RegExp(`^wrangler\\.toml \\[vars\\] sets ENVIRONMENT = "${value}": remove it\\.`)),
      ]);
      expect(problems[0]).toContain("switches off every production check");
    },
  );

  it("fails on the old all-zero placeholder ids, saying to remove them", () => {
    const problems = wranglerConfigProblems({
      vars: {},
      d1_databases: [{ binding: "DB", database_id: "00000000-0000-4000-8000-000000000000" }],
      kv_namespaces: [{ binding: "OAUTH_KV", id: "00000000000000000000000000000000" }],
    });
    expect(problems).toEqual([
      "the D1 database DB has the all-zero placeholder database_id: remove that line from wrangler.toml; wrangler deploy then links the database named by database_name, creating it the first time",
      "the KV namespace OAUTH_KV has the all-zero placeholder id: remove that line from wrangler.toml; wrangler deploy then creates the namespace the first time and keeps it after",
    ]);
  });
});
