import { describe, expect, it } from "vitest";
import {
  type DeployOptions,
  type DeployTarget,
  deployTargetOf,
  nothingYet,
  type Observed,
  planDeploy,
  type Step,
} from "../../scripts/lib/deploy-plan.ts";

// The deploy's plan from what it found on the account: which steps, in which
// order, and what it refuses. test/node/ runs the whole script against a fake
// wrangler; these are the rules themselves.

const TARGET: DeployTarget = {
  worker: "order-ops-edge",
  database: { binding: "DB", name: "order-ops-edge" },
  queues: ["order-ops-outbox", "order-ops-outbox-dlq"],
  publicBaseUrl: undefined,
};
const OPTIONS: DeployOptions = { account: "acme", passed: {}, ci: false, demoData: true };
const FRESH = { mcp: "m".repeat(64), approver: "a".repeat(64) };
const OURS = ["worker:order-ops-edge"];

/** Everything in place from an earlier run. */
const DEPLOYED: Observed = {
  queues: new Map([
    ["order-ops-outbox", OURS],
    ["order-ops-outbox-dlq", OURS],
  ]),
  databaseExists: true,
  secrets: new Set(["MCP_TOKENS", "APPROVER_TOKENS", "PUBLIC_BASE_URL"]),
};

function plan(observed: Observed, options: DeployOptions = OPTIONS, target: DeployTarget = TARGET) {
  const planned = planDeploy(target, observed, options, FRESH);
  if (!planned.ok) throw new Error(`expected a plan, got: ${planned.error.message}`);
  return planned.value;
}

const kinds = (steps: readonly Step[]) => steps.map((step) => (step.kind === "create_queue" ? step.queue : step.kind));

describe("deployTargetOf", () => {
  const CONFIG = {
    name: "order-ops-edge",
    vars: { MAX_BATCH: "100" },
    d1_databases: [{ binding: "DB", database_name: "order-ops-edge" }],
    queues: {
      producers: [{ queue: "order-ops-outbox" }],
      consumers: [
        { queue: "order-ops-outbox", dead_letter_queue: "order-ops-outbox-dlq" },
        { queue: "order-ops-outbox-dlq" },
      ],
    },
  };

  it("names every queue once, the dead-letter queue included, in the order wrangler.toml has them", () => {
    expect(deployTargetOf(CONFIG)).toEqual({ ok: true, value: TARGET });
  });

  it("keeps a PUBLIC_BASE_URL from [vars], and refuses a config without a name or a database name", () => {
    const custom = deployTargetOf({ ...CONFIG, vars: { PUBLIC_BASE_URL: "https://ops.example.com" } });
    expect(custom.ok && custom.value.publicBaseUrl).toBe("https://ops.example.com");
    expect(deployTargetOf({ ...CONFIG, name: undefined }).ok).toBe(false);
    expect(deployTargetOf({ ...CONFIG, d1_databases: [{ binding: "DB" }] }).ok).toBe(false);
  });
});

describe("planDeploy", () => {
  it("a first deploy: queues, then the deploy that creates the database, its migrations, and every secret", () => {
    const first = plan(nothingYet(TARGET));
    expect(kinds(first.steps)).toEqual([
      "order-ops-outbox",
      "order-ops-outbox-dlq",
      "deploy",
      "migrate",
      "set_secrets",
    ]);
    const secrets = first.steps.at(-1);
    expect(secrets).toEqual({
      kind: "set_secrets",
      values: {
        MCP_TOKENS: JSON.stringify({ [FRESH.mcp]: { account: "acme", operator: "Operator (acme, deployed demo)" } }),
        APPROVER_TOKENS: JSON.stringify({
          [FRESH.approver]: { account: "acme", approver: "Approver (acme, deployed demo)" },
        }),
      },
      publicBaseUrl: true,
    });
    expect(first.newTokens).toEqual([
      { kind: "mcp", token: FRESH.mcp, generated: true },
      { kind: "approver", token: FRESH.approver, generated: true },
    ]);
    expect(first.notes).toEqual([]);
  });

  it("with everything in place: the migrations before the deploy, nothing else, and says what it kept", () => {
    const again = plan(DEPLOYED);
    expect(kinds(again.steps)).toEqual(["migrate", "deploy"]);
    expect(again.newTokens).toEqual([]);
    expect(again.notes).toEqual([
      "MCP_TOKENS is already set: kept",
      "APPROVER_TOKENS is already set: kept",
      "PUBLIC_BASE_URL is already set: kept",
    ]);
  });

  it("creates only the queue that is missing, and sets only the secret that is missing", () => {
    const partly: Observed = {
      ...DEPLOYED,
      queues: new Map([
        ["order-ops-outbox", OURS],
        ["order-ops-outbox-dlq", null],
      ]),
      secrets: new Set(["MCP_TOKENS", "PUBLIC_BASE_URL"]),
    };
    const steps = plan(partly).steps;
    expect(kinds(steps)).toEqual(["order-ops-outbox-dlq", "migrate", "deploy", "set_secrets"]);
    expect(steps.at(-1)).toMatchObject({ values: { APPROVER_TOKENS: expect.any(String) }, publicBaseUrl: false });
    expect(Object.keys((steps.at(-1) as { values: object }).values)).toEqual(["APPROVER_TOKENS"]);
  });

  it("refuses a queue another Worker consumes, naming it, even beside our own consumer", () => {
    const taken: Observed = {
      ...nothingYet(TARGET),
      queues: new Map([
        ["order-ops-outbox", null],
        ["order-ops-outbox-dlq", [...OURS, "worker:billing"]],
      ]),
    };
    const planned = planDeploy(TARGET, taken, OPTIONS, FRESH);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.error.code).toBe("conflict");
    expect(planned.error.message).toMatch(
      /^the queue order-ops-outbox-dlq already exists on this account and is consumed by worker:billing; a queue has one consumer/,
    );
  });

  it("leaves PUBLIC_BASE_URL to wrangler.toml when [vars] sets it", () => {
    const custom = plan(nothingYet(TARGET), OPTIONS, { ...TARGET, publicBaseUrl: "https://ops.example.com" });
    expect(custom.steps.at(-1)).toMatchObject({ kind: "set_secrets", publicBaseUrl: false });
    expect(custom.notes).toEqual(["PUBLIC_BASE_URL is https://ops.example.com, from wrangler.toml [vars]"]);
  });

  it("uses passed tokens where a secret is missing, and says when one was not used because the secret is set", () => {
    const passed = { mcp: "p".repeat(40), approver: "q".repeat(40) };
    const half: Observed = { ...DEPLOYED, secrets: new Set(["MCP_TOKENS", "PUBLIC_BASE_URL"]) };
    const planned = plan(half, { ...OPTIONS, passed });
    expect(planned.newTokens).toEqual([{ kind: "approver", token: passed.approver, generated: false }]);
    expect(planned.notes[0]).toBe(
      "MCP_TOKENS is already set: kept, and the token you passed was not used (to replace it, `npx wrangler secret delete MCP_TOKENS`, then `npm run deploy` again)",
    );
  });

  it("in a CI build makes no token, says where to set them, and still sets PUBLIC_BASE_URL", () => {
    const ci = plan(nothingYet(TARGET), { ...OPTIONS, ci: true });
    expect(ci.newTokens).toEqual([]);
    expect(ci.steps.at(-1)).toEqual({ kind: "set_secrets", values: {}, publicBaseUrl: true });
    expect(ci.notes).toHaveLength(2);
    expect(ci.notes[0]).toMatch(/^MCP_TOKENS is not set, and in a CI build no token is made/);
    expect(ci.notes[1]).toContain("ORDER_OPS_APPROVER_TOKEN");
  });

  it("with nothing missing in a CI build, changes nothing either", () => {
    expect(kinds(plan(DEPLOYED, { ...OPTIONS, ci: true }).steps)).toEqual(["migrate", "deploy"]);
  });
});
