import { describe, expect, it } from "vitest";
import {
  explainFailure,
  failureOf,
  isMissingDatabase,
  isMissingQueue,
  isMissingWorker,
  loginOf,
  outputEntries,
  queueConsumersOf,
  type Ran,
  secretNamesOf,
  workersDevUrlOf,
} from "../../scripts/lib/wrangler-output.ts";

// The deploy reads wrangler 4.156.2's answers. The samples are shaped as
// wrangler prints them (its source in node_modules/wrangler, and its real
// output on a machine with no login for the failures).

const BANNER = "\n ⛅️ wrangler 4.156.2\n───────────────────────────────────────────────\n";
const NOT_LOGGED_IN =
  "In a non-interactive environment, it's necessary to set a CLOUDFLARE_API_TOKEN environment variable for wrangler to work. Please go to https://developers.cloudflare.com/fundamentals/api/get-started/create-token/ for instructions on how to create an api token, and assign its value to CLOUDFLARE_API_TOKEN.\n\nTo continue without logging in, rerun this command with `--temporary`. Wrangler will use a temporary account and print a claim URL.";

function ran(change: Partial<Ran>): Ran {
  return { status: 0, stdout: "", stderr: "", entries: [], ...change };
}

describe("wrangler's output file", () => {
  it("is read line by line, and a failed command's message comes from its command-failed entry", () => {
    const file = [
      JSON.stringify({ type: "wrangler-session", version: 1, wrangler_version: "4.156.2" }),
      JSON.stringify({ type: "command-failed", version: 1, message: NOT_LOGGED_IN, timestamp: "2026-12-06T07:49:20Z" }),
      "",
      "not json",
    ].join("\n");
    const entries = outputEntries(file);
    expect(entries.map((entry) => entry.type)).toEqual(["wrangler-session", "command-failed"]);
    expect(failureOf(ran({ status: 1, entries }))).toBe(NOT_LOGGED_IN);
    expect(explainFailure("wrangler queues info order-ops-outbox", NOT_LOGGED_IN)).toBe(
      "wrangler is not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then `npm run deploy` again",
    );
  });

  it("without an entry, the failure is the end of what wrangler printed, without its colours", () => {
    const stderr =
      "\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m \u001b[1mSomething broke\u001b[0m\n";
    expect(failureOf(ran({ status: 1, stderr }))).toBe("Something broke");
    expect(failureOf(ran({ status: 3 }))).toBe("it exited with status 3");
  });

  it("the workers.dev address comes from the deploy entry's targets, else from the printed list", () => {
    const targets = ["https://order-ops-edge.ada.workers.dev", "schedule: * * * * *", "Producer for order-ops-outbox"];
    expect(workersDevUrlOf(ran({ entries: [{ type: "deploy", version: 1, targets }] }))).toBe(targets[0]);
    const printed = `${BANNER}Deployed order-ops-edge triggers (1.02 sec)\n  https://order-ops-edge.ada.workers.dev\n  schedule: * * * * *\n`;
    expect(workersDevUrlOf(ran({ stdout: printed }))).toBe("https://order-ops-edge.ada.workers.dev");
    const routesOnly = [{ type: "deploy", version: 1, targets: ["ops.example.com/*"] }];
    expect(workersDevUrlOf(ran({ entries: routesOnly }))).toBeUndefined();
  });
});

describe("wrangler's answers", () => {
  it("whoami --json: logged in (4-space JSON), not logged in, or no answer at all", () => {
    const who = { loggedIn: true, authType: "OAuth Token", email: "ada@example.com", accounts: [] };
    expect(loginOf(ran({ stdout: `${JSON.stringify(who, null, 4)}\n` }))).toEqual({
      loggedIn: true,
      email: "ada@example.com",
    });
    expect(loginOf(ran({ status: 1, stdout: '\n{"loggedIn":false}\n' }))).toEqual({ loggedIn: false });
    expect(loginOf(ran({ status: 1, stdout: BANNER }))).toBeUndefined();
  });

  it("secret list --format json: the names, also with a notice after the list", () => {
    const listed = JSON.stringify(
      [
        { name: "MCP_TOKENS", type: "secret_text" },
        { name: "PUBLIC_BASE_URL", type: "secret_text" },
      ],
      null,
      "  ",
    );
    expect(secretNamesOf(ran({ stdout: `${listed}\n` }))).toEqual(["MCP_TOKENS", "PUBLIC_BASE_URL"]);
    expect(secretNamesOf(ran({ stdout: `[]\n\nA newer wrangler is available\n` }))).toEqual([]);
    expect(secretNamesOf(ran({ stdout: "Secret Name: MCP_TOKENS\n" }))).toBeUndefined();
  });

  it("queues info: its consumers, none, an HTTP pull consumer, or null when it answered about another queue", () => {
    const info = (name: string, consumers: string[]) =>
      ran({
        stdout: `${BANNER}Queue Name: ${name}\nQueue ID: 3f0c\nCreated On: 2026-12-01\nLast Modified: 2026-12-01\nNumber of Producers: 1\nProducers: worker:order-ops-edge\nNumber of Consumers: ${consumers.length}\n${consumers.length > 0 ? `Consumers: ${consumers.toString()}\n` : ""}`,
      });
    expect(queueConsumersOf("q", info("q", ["worker:order-ops-edge", "worker:billing"]))).toEqual([
      "worker:order-ops-edge",
      "worker:billing",
    ]);
    expect(queueConsumersOf("q", info("q", []))).toEqual([]);
    expect(queueConsumersOf("q", info("q", ["HTTP Pull Consumer.\nPull messages using:"]))).toEqual([
      "an HTTP pull consumer",
    ]);
    expect(queueConsumersOf("q", info("q", ["worker:undefined", "worker:billing"]))).toEqual(["worker:billing"]);
    expect(queueConsumersOf("q", info("q-dlq", []))).toBeNull();
  });

  it("tells a missing queue, database or Worker by wrangler's own messages", () => {
    expect(isMissingQueue('Queue "order-ops-outbox" does not exist. To create it, run: wrangler queues create x')).toBe(
      true,
    );
    expect(
      isMissingDatabase(
        "Couldn't find a D1 DB named 'order-ops-edge' (bound as 'DB') in the API. Run 'wrangler d1 create order-ops-edge' to create it.",
      ),
    ).toBe(true);
    expect(isMissingDatabase("Couldn't find an auto-provisioned D1 DB named 'x-db' for binding 'DB'.")).toBe(true);
    expect(
      isMissingWorker('Worker "order-ops-edge" not found.\n\nIf this is a new Worker, run `wrangler deploy`'),
    ).toBe(true);
    expect(isMissingQueue(NOT_LOGGED_IN) || isMissingDatabase(NOT_LOGGED_IN) || isMissingWorker(NOT_LOGGED_IN)).toBe(
      false,
    );
  });
});

describe("explainFailure", () => {
  it("no workers.dev subdomain: where to choose one, from wrangler's message", () => {
    const message =
      "You can either deploy your worker to one or more routes by specifying them in your wrangler.toml file, or register a workers.dev subdomain here:\nhttps://dash.cloudflare.com/0a1b/workers/onboarding";
    expect(explainFailure("wrangler deploy", message)).toContain(
      "choose one at https://dash.cloudflare.com/0a1b/workers/onboarding, once per account",
    );
  });

  it("a KV namespace left by a first deploy that stopped halfway: how to remove it", () => {
    const message = "A namespace with this account ID and title already exists [code: 10014]";
    expect(explainFailure("wrangler deploy", message)).toMatch(
      /^a KV namespace of that name is left from an earlier deploy .* `npx wrangler kv namespace delete --namespace-id <id>`/,
    );
  });

  it("anything else repeats wrangler's message and says a rerun skips what is done", () => {
    expect(explainFailure("wrangler deploy", "Your account is over its D1 limit")).toBe(
      "`wrangler deploy` failed: Your account is over its D1 limit. Fix what it says, then run `npm run deploy` again: what is already done is skipped",
    );
  });
});
