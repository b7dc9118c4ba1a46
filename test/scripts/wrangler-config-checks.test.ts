import { describe, expect, it } from "vitest";
import { type DeployedConfig, wranglerConfigFindings } from "../../scripts/lib/wrangler-config-checks.ts";

// deploy:check's own look at wrangler.toml: an ENVIRONMENT in [vars] fails it,
// placeholder ids only warn (the committed file has them and runs in CI).

const REAL: DeployedConfig = {
  vars: { MAX_BATCH: "100", RATE_LIMITS: "on" },
  d1_databases: [{ binding: "DB", database_id: "2f6c1a3e-8b1d-4c7a-9e0f-5d4b3a2c1e0f" }],
  kv_namespaces: [{ binding: "OAUTH_KV", id: "9a8b7c6d5e4f30211203f4e5d6c7b8a9" }],
};

describe("wranglerConfigFindings", () => {
  it("a configuration ready to deploy has nothing to say", () => {
    expect(wranglerConfigFindings(REAL)).toEqual({ errors: [], warnings: [] });
  });

  it.each(["development", "production"])(
    "fails when [vars] sets ENVIRONMENT (%s): it belongs in .dev.vars only",
    (value) => {
      const { errors } = wranglerConfigFindings({ ...REAL, vars: { ...REAL.vars, ENVIRONMENT: value } });
      expect(errors).toEqual([
        expect.stringMatching(new RegExp(`^wrangler\\.toml \\[vars\\] sets ENVIRONMENT = "${value}": remove it\\.`)),
      ]);
      expect(errors[0]).toContain("switches off every production check");
    },
  );

  it("warns, without failing, about the committed placeholder ids", () => {
    const findings = wranglerConfigFindings({
      vars: {},
      d1_databases: [{ binding: "DB", database_id: "00000000-0000-4000-8000-000000000000" }],
      kv_namespaces: [{ binding: "OAUTH_KV", id: "00000000000000000000000000000000" }],
    });
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([
      "the D1 database DB still has the placeholder database_id: before `npm run deploy`, run `npx wrangler d1 create order-ops-edge` and put the id it prints in wrangler.toml",
      "the KV namespace OAUTH_KV still has the placeholder id: before `npm run deploy`, run `npx wrangler kv namespace create OAUTH_KV` and put the id it prints in wrangler.toml",
    ]);
  });
});
