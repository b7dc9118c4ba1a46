import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config";
import app from "../../src/index";
import type { AccountToolContext } from "../../src/mcp/account-context";
import { type Loan, poolKey, withPooledServer } from "../../src/mcp/transport/server-pool";
import { MCP_URL } from "../helpers/mcp-client";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN, GLOBEX_TOKEN, READER_TOKEN } from "../helpers/tokens";

// Built MCP servers are lent to one request at a time and kept per isolate,
// keyed by what they offer. Whoever borrows one sees their own account,
// operator and scopes, never the previous borrower's.

/** One env object for every request, so the configuration (and with it the pool) is shared. */
const SHARED_ENV = {
  ...env,
  MCP_TOKENS: JSON.stringify({
    [ACME_TOKEN]: { account: "acme", operator: "Ada" },
    [GLOBEX_TOKEN]: { account: "globex", operator: "Gus" },
    [READER_TOKEN]: { account: "acme", operator: "Reader", scopes: ["orders:read"] },
  }),
} as Env;

async function call(token: string, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const request = new Request(MCP_URL, {
    method: "POST",
    headers: mcpHeaders({ token }),
    body: JSON.stringify(rpc(1, method, params)),
  });
  const response = await app.fetch(request, SHARED_ENV, createExecutionContext());
  expect(response.status).toBe(200);
  const body = (await response.json()) as JsonRpcMessage;
  expect(body.error).toBeUndefined();
  return body.result ?? {};
}

const toolNames = async (token: string) =>
  ((await call(token, "tools/list")).tools as { name: string }[]).map((tool) => tool.name);
const promptNames = async (token: string) =>
  ((await call(token, "prompts/list")).prompts as { name: string }[]).map((prompt) => prompt.name);

async function exceptionIds(token: string): Promise<string[]> {
  const result = await call(token, "tools/call", { name: "list_order_exceptions", arguments: {} });
  const queue = result.structuredContent as { exceptions: { order_id: string }[] };
  return queue.exceptions.map((exception) => exception.order_id).sort();
}

async function statusOf(token: string, orderId: string): Promise<string> {
  const result = await call(token, "tools/call", { name: "get_order_status", arguments: { order_id: orderId } });
  return result.isError === true ? "not found" : String((result.structuredContent as { status: string }).status);
}

describe("requests of different accounts and scopes, interleaved on pooled servers", () => {
  it("each sees its own account's orders and its own scopes' tools, however they interleave", async () => {
    const [acmeQueue, globexQueue, fullList, readerList, fullPrompts, readerPrompts] = await Promise.all([
      exceptionIds(ACME_TOKEN),
      exceptionIds(GLOBEX_TOKEN),
      toolNames(ACME_TOKEN),
      toolNames(READER_TOKEN),
      promptNames(ACME_TOKEN),
      promptNames(READER_TOKEN),
    ]);
    expect(acmeQueue.length).toBeGreaterThan(0);
    expect(globexQueue.length).toBeGreaterThan(0);
    expect(acmeQueue.every((id) => id.startsWith("ORD-10"))).toBe(true);
    expect(globexQueue.every((id) => id.startsWith("ORD-20"))).toBe(true);
    expect(fullList).toContain("send_orders");
    expect(readerList).not.toContain("send_orders");
    expect(readerList).toContain("get_order_status");
    expect(fullPrompts).toContain("load_test");
    expect(readerPrompts).not.toContain("load_test");

    // Many at once, in a mixed order, so servers are borrowed back and forth between accounts and scopes.
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async () => ({
        acme: await exceptionIds(ACME_TOKEN),
        reader: await toolNames(READER_TOKEN),
        globex: await exceptionIds(GLOBEX_TOKEN),
        readerPrompts: await promptNames(READER_TOKEN),
        full: await toolNames(ACME_TOKEN),
        fullPrompts: await promptNames(ACME_TOKEN),
        globexSeesAcme: await statusOf(GLOBEX_TOKEN, "ORD-1001"),
        acmeSeesGlobex: await statusOf(ACME_TOKEN, "ORD-2001"),
        acmeOwn: await statusOf(ACME_TOKEN, "ORD-1001"),
      })),
    );
    for (const round of rounds) {
      expect(round).toEqual({
        acme: acmeQueue,
        reader: readerList,
        globex: globexQueue,
        readerPrompts,
        full: fullList,
        fullPrompts,
        globexSeesAcme: "not found",
        acmeSeesGlobex: "not found",
        acmeOwn: expect.not.stringMatching(/^not found$/),
      });
    }
  });
});

describe("withPooledServer", () => {
  const config = loadConfig(env);
  if (!config.ok) throw new Error(config.error.message);
  const contextFor = (account: string): AccountToolContext =>
    ({
      account,
      operator: `${account} operator`,
      scopes: ["orders:read"],
      config: config.value,
    }) as unknown as AccountToolContext;

  /** The pool of one key in this configuration, lent to `account`'s request. */
  const shelf = (account: string, key: string) => ({ scope: config.value, key, borrower: contextFor(account) });

  /** The account a stand-in server is serving right now, if any. */
  const servingNow = (entry: { loan: Loan<AccountToolContext> }) => {
    try {
      return entry.loan.context().account;
    } catch {
      return undefined;
    }
  };

  /** A stand-in server that records what its loan says while a request runs. */
  function recorder() {
    const built: { loan: Loan<AccountToolContext> }[] = [];
    const build = (loan: Loan<AccountToolContext>) => {
      const entry = { loan };
      built.push(entry);
      return entry;
    };
    return { built, build };
  }

  it("lends one server to one request at a time, with that request's context only", async () => {
    const { built, build } = recorder();
    const key = `test-${crypto.randomUUID()}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = withPooledServer(shelf("acme", key), build, async () => {
      await held;
      return built[0]?.loan.context().account;
    });
    // While the first request holds its server, a second one gets another.
    const second = await withPooledServer(
      shelf("globex", key),
      build,
      async () => built.at(-1)?.loan.context().account,
    );
    release();
    expect(await first).toBe("acme");
    expect(second).toBe("globex");
    expect(built).toHaveLength(2);
    // Between requests a server belongs to nobody.
    expect(() => built[0]?.loan.context()).toThrow(/outside the request/);

    // The next request borrows an idle one: it sees its own account, the other idle one nobody's.
    const third = await withPooledServer(shelf("initech", key), build, async () => built.map(servingNow));
    expect(built).toHaveLength(2);
    expect([...third].sort()).toEqual(["initech", undefined]);
  });

  it("drops a server whose request failed, instead of lending it again", async () => {
    const { built, build } = recorder();
    const key = `test-${crypto.randomUUID()}`;
    await expect(
      withPooledServer(shelf("acme", key), build, async () => Promise.reject(new Error("tool blew up"))),
    ).rejects.toThrow("tool blew up");
    await withPooledServer(shelf("acme", key), build, async () => undefined);
    expect(built).toHaveLength(2);
  });

  it("keys servers by the tools shown and the scopes, not by account or operator", () => {
    const acme = contextFor("acme");
    const globex = contextFor("globex");
    expect(poolKey(["a", "b"], acme.scopes)).toBe(poolKey(["a", "b"], globex.scopes));
    expect(poolKey(["a"], acme.scopes)).not.toBe(poolKey(["a", "b"], acme.scopes));
    expect(poolKey(["a"], acme.scopes)).not.toBe(poolKey(["a"], ["orders:read", "orders:propose"]));
  });
});
