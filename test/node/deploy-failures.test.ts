import { afterEach, describe, expect, it } from "vitest";
import type { FakeAccount } from "./fake-account.ts";
import { FakeCloudflare, freshAccount } from "./fake-cloudflare.ts";

// Each way a newcomer's `npm run deploy` fails stops it with one sentence
// saying what to do, before it changes anything it should not; run again
// once that is done, it picks up where it stopped.

const STOPPED = "npm run deploy stopped: ";

let fake: FakeCloudflare | undefined;
afterEach(() => fake?.remove());

function cloudflare(change: Partial<FakeAccount> = {}): FakeCloudflare {
  fake = new FakeCloudflare(freshAccount(change));
  return fake;
}

/** The commands that change the account. */
function changes(calls: readonly string[]): string[] {
  return calls.filter((call) => /^wrangler (?:queues create|deploy|d1 migrations|secret bulk)/.test(call));
}

/** The sentence the script stopped with. */
function stoppedWith(stderr: string): string {
  return stderr.slice(stderr.indexOf(STOPPED) + STOPPED.length).trim();
}

describe("npm run deploy stops with a sentence", () => {
  it("when deploy:check fails: before asking Cloudflare anything", async () => {
    const account = cloudflare({ checkPasses: false });
    const run = await account.deploy();
    expect(run.status).toBe(1);
    expect(account.calls()).toEqual(["npm run deploy:check"]);
    expect(run.stderr).toContain(STOPPED);
  });

  it("when wrangler is not logged in", async () => {
    const account = cloudflare({ loggedIn: false });
    const run = await account.deploy();
    expect(run.status).toBe(1);
    expect(account.calls()).toEqual(["npm run deploy:check", "wrangler whoami --json"]);
    expect(stoppedWith(run.stderr)).toBe(
      "wrangler is not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then `npm run deploy` again",
    );
  });

  it("when a queue of ours is consumed by another Worker: nothing is created", async () => {
    const account = cloudflare({ queues: { "order-ops-outbox": ["worker:someone-elses-worker"] } });
    const run = await account.deploy();
    expect(run.status).toBe(1);
    expect(changes(account.calls())).toEqual([]);
    expect(stoppedWith(run.stderr)).toBe(
      "the queue order-ops-outbox already exists on this account and is consumed by worker:someone-elses-worker; a queue has one consumer, so order-ops-edge cannot take it. Remove that consumer (`npx wrangler queues consumer remove order-ops-outbox <worker>`), or rename this Worker's queues in wrangler.toml and src/outbox/messages.ts, then run `npm run deploy` again",
    );
  });

  it("when the account has no workers.dev subdomain yet; once it has one, the next run goes on without creating the queues twice", async () => {
    const account = cloudflare({ subdomain: null });
    const run = await account.deploy();
    expect(run.status).toBe(1);
    expect(stoppedWith(run.stderr)).toBe(
      "your Cloudflare account has no workers.dev subdomain yet, so the Worker would have no address: choose one at https://dash.cloudflare.com/0a1b2c3d4e5f60718293a4b5c6d7e8f9/workers/onboarding, once per account, then run `npm run deploy` again; what was created before this step is kept and reused",
    );
    expect(account.account()).toMatchObject({ worker: null, databases: {}, kvNamespaces: [] });

    account.change({ subdomain: "ada" });
    account.forgetCalls();
    const again = await account.deploy();
    expect(again.status).toBe(0);
    expect(changes(account.calls())).toEqual([
      "wrangler deploy --var DEMO_DATA:on",
      "wrangler d1 migrations apply DB --remote",
      "wrangler secret bulk",
    ]);
  });

  it("when wrangler cannot tell which of several accounts to use; CLOUDFLARE_ACCOUNT_ID settles it", async () => {
    const accounts = [
      { id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9", name: "Ada's Account" },
      { id: "f9e8d7c6b5a40392817f6e5d4c3b2a10", name: "Team" },
    ];
    const account = cloudflare({ accounts });
    const run = await account.deploy();
    expect(run.status).toBe(1);
    expect(changes(account.calls())).toEqual([]);
    expect(stoppedWith(run.stderr)).toMatch(
      /^wrangler can use more than one Cloudflare account and cannot ask which one here: run `CLOUDFLARE_ACCOUNT_ID=<account id> npm run deploy`\. wrangler said: More than one account available/,
    );
    expect(run.stderr).toContain("`Team`: `f9e8d7c6b5a40392817f6e5d4c3b2a10`");

    const chosen = await account.deploy([], { CLOUDFLARE_ACCOUNT_ID: "f9e8d7c6b5a40392817f6e5d4c3b2a10" });
    expect(chosen.status).toBe(0);
  });

  it.each([
    [["--mcp-token", "acme-dev-token"], "the MCP token is one of the development tokens in .dev.vars"],
    [["--approver-token", "short"], "the approver token is 5 characters; a deployed Worker needs at least 32"],
    [["--account", "Acme Corp"], '--account "Acme Corp": account ids are 2-32 lowercase letters'],
    [["--dryrun"], 'unknown option "--dryrun"'],
  ])("when an option is refused (%j): before running anything", async (args, message) => {
    const account = cloudflare();
    const run = await account.deploy(args);
    expect(run.status).toBe(1);
    expect(account.calls()).toEqual([]);
    expect(stoppedWith(run.stderr)).toContain(message);
  });
});
