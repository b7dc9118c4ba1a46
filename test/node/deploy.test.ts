import { afterEach, describe, expect, it } from "vitest";
import { FakeCloudflare, freshAccount } from "./fake-cloudflare.ts";

// `npm run deploy` against a fake wrangler on PATH that answers like wrangler
// 4.156.2 and keeps the account between calls: a first deploy creates what
// is missing in a sensible order and prints the new tokens once; a second run
// changes nothing; the dry run lists exactly what a first deploy runs.

const WORKER = "order-ops-edge";
const URL = "https://order-ops-edge.ada.workers.dev";
const HEX_TOKEN = /\b[0-9a-f]{64}\b/g;

const READS = [
  "npm run deploy:check",
  "wrangler whoami --json",
  "wrangler queues info order-ops-outbox",
  "wrangler queues info order-ops-outbox-dlq",
  "wrangler d1 info DB --json",
  "wrangler secret list --format json",
];
const FIRST_DEPLOY = [
  ...READS,
  "wrangler queues create order-ops-outbox",
  "wrangler queues create order-ops-outbox-dlq",
  "wrangler deploy --var DEMO_DATA:on",
  "wrangler d1 migrations apply DB --remote",
  "wrangler secret bulk",
];

let fake: FakeCloudflare | undefined;
afterEach(() => fake?.remove());

function cloudflare(...args: Parameters<typeof freshAccount>): FakeCloudflare {
  fake = new FakeCloudflare(freshAccount(...args));
  return fake;
}

/** The JSON map a token secret holds. */
function holders(secret: string | undefined): Record<string, Record<string, string>> {
  return JSON.parse(secret ?? "{}") as Record<string, Record<string, string>>;
}

describe("npm run deploy", () => {
  it("a first deploy creates the queues, deploys, migrates the new database and sets three secrets; the tokens it prints are the ones set", async () => {
    const account = cloudflare();
    const run = await account.deploy();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(account.calls()).toEqual(FIRST_DEPLOY);

    const after = account.account();
    expect(after.queues).toEqual({
      "order-ops-outbox": [`worker:${WORKER}`],
      "order-ops-outbox-dlq": [`worker:${WORKER}`],
    });
    expect(after.databases["order-ops-edge"]).toContain("0001_orders.sql");
    expect(after.kvNamespaces).toEqual(["order-ops-edge-oauth-kv"]);
    const secrets = after.worker?.secrets ?? {};
    expect(Object.keys(secrets).sort()).toEqual(["APPROVER_TOKENS", "MCP_TOKENS", "PUBLIC_BASE_URL"]);
    expect(secrets.PUBLIC_BASE_URL).toBe(URL);

    const printed = run.stdout.match(HEX_TOKEN) ?? [];
    const [mcpToken, approverToken] = [...new Set(printed)];
    expect(mcpToken).not.toBe(approverToken);
    expect(holders(secrets.MCP_TOKENS)).toEqual({
      [mcpToken ?? ""]: { account: "acme", operator: "Operator (acme, deployed demo)" },
    });
    expect(holders(secrets.APPROVER_TOKENS)).toEqual({
      [approverToken ?? ""]: { account: "acme", approver: "Approver (acme, deployed demo)" },
    });
    expect(run.stdout).toContain(`${WORKER} is deployed at ${URL}`);
    expect(run.stdout).toContain(
      `claude mcp add --transport http order-ops ${URL}/mcp --header "Authorization: Bearer ${mcpToken}"`,
    );
    expect(run.stdout).toContain(`${URL}/approvals`);
  });

  it("run again, it makes the same reads, migrates before the deploy, and changes nothing but the upload count", async () => {
    const account = cloudflare();
    expect((await account.deploy()).status).toBe(0);
    const first = account.account();
    account.forgetCalls();

    const again = await account.deploy();
    expect(again.status).toBe(0);
    expect(account.calls()).toEqual([
      ...READS,
      "wrangler d1 migrations apply DB --remote",
      "wrangler deploy --var DEMO_DATA:on",
    ]);
    const second = account.account();
    expect(second).toEqual({ ...first, worker: { ...first.worker, uploads: 2 } });
    expect(again.stdout).not.toMatch(HEX_TOKEN);
    expect(again.stdout).toContain("MCP_TOKENS is already set: kept");
    expect(again.stdout).toContain("PUBLIC_BASE_URL is already set: kept");
    expect(again.stdout).toContain('--header "Authorization: Bearer <your MCP token>"');
  });

  it("the dry run lists, in order, exactly the commands a first deploy runs, and runs none of them", async () => {
    const account = cloudflare();
    const dry = await account.deploy(["--dry-run"]);
    expect(dry.status).toBe(0);
    expect(account.calls()).toEqual([]);
    const listed = dry.stdout
      .split("\n")
      .flatMap((line) => /^\s*\d+\. (\S.*?)\s{3,}/.exec(line)?.[1] ?? [])
      .map((command) => command.trim());
    expect(listed).toEqual(FIRST_DEPLOY);
    // What a person needs before the real run: the tokens are shown once, and nothing is served between the steps.
    expect(dry.stdout).toContain("The tokens it makes are printed once, at the end, and never again: copy them then.");
    expect(dry.stdout).toContain(
      "Between the upload (`wrangler deploy`) and the secrets (`wrangler secret bulk`) the Worker is live at its workers.dev address with no tokens and no PUBLIC_BASE_URL: it then answers only /health, and every other route answers 503",
    );

    await account.deploy();
    expect(account.calls()).toEqual(listed);
  });

  it("tokens passed as flags or in the environment are set instead of new ones, and not printed", async () => {
    const account = cloudflare();
    const mcp = "m".repeat(40);
    const approver = "a".repeat(40);
    const run = await account.deploy(["--account", "globex", "--mcp-token", mcp], {
      ORDER_OPS_APPROVER_TOKEN: approver,
    });
    expect(run.status).toBe(0);
    const secrets = account.account().worker?.secrets ?? {};
    expect(Object.keys(holders(secrets.MCP_TOKENS))).toEqual([mcp]);
    expect(holders(secrets.APPROVER_TOKENS)[approver]?.account).toBe("globex");
    expect(run.stdout).not.toContain(mcp);
    expect(run.stdout).not.toContain(approver);
    expect(run.stdout).not.toMatch(HEX_TOKEN);
  });

  it("in a CI build (the Deploy button's) it makes no token, which would land in the build log, but still sets PUBLIC_BASE_URL", async () => {
    const account = cloudflare();
    const run = await account.deploy([], { WORKERS_CI: "1" });
    expect(run.status).toBe(0);
    expect(Object.keys(account.account().worker?.secrets ?? {})).toEqual(["PUBLIC_BASE_URL"]);
    expect(run.stdout).not.toMatch(HEX_TOKEN);
    expect(run.stdout).toContain("MCP_TOKENS is not set, and in a CI build no token is made");
  });

  it("a secret deleted since (to replace a token) is made again, and only that one", async () => {
    const account = cloudflare();
    expect((await account.deploy()).status).toBe(0);
    const before = account.account();
    const { MCP_TOKENS: _dropped, ...kept } = before.worker?.secrets ?? {};
    account.change({ worker: { uploads: 1, secrets: kept } });

    const run = await account.deploy();
    expect(run.status).toBe(0);
    const secrets = account.account().worker?.secrets ?? {};
    expect(secrets.APPROVER_TOKENS).toBe(kept.APPROVER_TOKENS);
    expect(Object.keys(holders(secrets.MCP_TOKENS))).toEqual(run.stdout.match(HEX_TOKEN)?.slice(0, 1));
    expect(run.stdout).toContain("APPROVER_TOKENS is already set: kept");
  });
});
