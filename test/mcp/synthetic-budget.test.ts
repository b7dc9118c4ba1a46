import { describe, expect, it } from "vitest";
import { fetchWithEnv } from "../helpers/app-with-env";
import { type JsonRpcMessage, mcpHeaders, rpc } from "../helpers/mcp-raw";

// Synthetic traffic has its own budget, in orders per minute per account
// (SYNTH_ORDERS_PER_MINUTE), met by send_orders and start_traffic_run however
// the calls arrive: one by one or in one JSON-RPC batch. Each test uses an
// account of its own, so the budgets do not meet.

const allowAll: RateLimit = { limit: () => Promise.resolve({ success: true }) };

function budgetedAccount(perMinute: number, rateLimits = "on") {
  const account = `budget-${crypto.randomUUID().slice(0, 8)}`;
  const token = `${account}-token`;
  const overrides = {
    RATE_LIMITS: rateLimits,
    SYNTH_ORDERS_PER_MINUTE: String(perMinute),
    MCP_RATE_LIMITER: allowAll,
    MCP_TOKENS: JSON.stringify({ [token]: { account, operator: "Budget Ops" } }),
  };
  const post = async (body: unknown): Promise<unknown> => {
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: mcpHeaders({ token, accept: "application/json" }),
      body: JSON.stringify(body),
    });
    const response = await fetchWithEnv(request, overrides);
    expect(response.status).toBe(200);
    return response.json();
  };
  return { account, post };
}

const sendOrders = (id: number, count: number) =>
  rpc(id, "tools/call", { name: "send_orders", arguments: { count, mode: "simple" } });

function outcome(message: JsonRpcMessage): { isError: boolean; text: string } {
  const result = message.result as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: result.isError ?? false, text: result.content[0]?.text ?? "" };
}

const BUDGET_OF_5 = "this account's synthetic traffic budget of 5 orders per minute \\(SYNTH_ORDERS_PER_MINUTE\\)";

describe("send_orders within the budget", () => {
  it("orders fit until the minute's budget is used; the next batch is refused naming the budget and when to retry, and sends nothing", async () => {
    const { post } = budgetedAccount(5);
    expect(outcome((await post(sendOrders(1, 3))) as JsonRpcMessage).isError).toBe(false);
    const refused = outcome((await post(sendOrders(2, 3))) as JsonRpcMessage);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      new RegExp(
        `^a batch of 3 orders would go over ${BUDGET_OF_5}: 3 orders went out in batches, runs and searches in the last minute\\. Retry after (59|60) seconds\\.$`,
      ),
    );
    const batches = (await post(rpc(3, "resources/read", { uri: "synthetic://batches" }))) as JsonRpcMessage;
    const listed = JSON.parse((batches.result?.contents as Array<{ text: string }> | undefined)?.[0]?.text ?? "{}") as {
      batches: unknown[];
    };
    expect(listed.batches).toHaveLength(1);
  });

  it("in one 2025-03-26 batch of calls, the calls that fit run and the rest are refused, each answered in order", async () => {
    const { post } = budgetedAccount(5);
    const answers = (await post([sendOrders(11, 2), sendOrders(12, 2), sendOrders(13, 2)])) as JsonRpcMessage[];
    expect(answers.map((a) => a.id)).toEqual([11, 12, 13]);
    expect(answers.map((a) => outcome(a).isError)).toEqual([false, false, true]);
    expect(outcome(answers[2] as JsonRpcMessage).text).toMatch(
      new RegExp(`^a batch of 2 orders would go over ${BUDGET_OF_5}: 4 orders went out`),
    );
  });

  it("with RATE_LIMITS off (local development) the budget does not apply", async () => {
    const { post } = budgetedAccount(5, "off");
    expect(outcome((await post(sendOrders(21, 6))) as JsonRpcMessage).isError).toBe(false);
  });
});

describe("start_traffic_run within the budget", () => {
  it("a run faster than the whole budget is refused before it starts", async () => {
    const { post } = budgetedAccount(5);
    const answer = (await post(
      rpc(31, "tools/call", {
        name: "start_traffic_run",
        arguments: { rate_per_second: 1, duration_seconds: 30, mode: "simple" },
      }),
    )) as JsonRpcMessage;
    const refused = outcome(answer);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      new RegExp(`^a run at 30 orders a minute is more than ${BUDGET_OF_5}; start it at a lower rate`),
    );
    const runs = (await post(rpc(32, "resources/read", { uri: "synthetic://runs" }))) as JsonRpcMessage;
    expect(JSON.parse((runs.result?.contents as Array<{ text: string }> | undefined)?.[0]?.text ?? "{}")).toEqual({
      runs: [],
    });
  });

  it("a running run's pace counts: a batch that does not fit beside it is refused until it ends", async () => {
    const { post } = budgetedAccount(60);
    const started = (await post(
      rpc(41, "tools/call", {
        name: "start_traffic_run",
        arguments: { rate_per_second: 1, duration_seconds: 60, mode: "simple" },
      }),
    )) as JsonRpcMessage;
    expect(outcome(started).isError).toBe(false);
    const runId = (started.result?.structuredContent as { run_id: string } | undefined)?.run_id;
    const refused = outcome((await post(sendOrders(42, 10))) as JsonRpcMessage);
    expect(refused.text).toMatch(
      /running traffic runs send 60 a minute\. Retry once a running run has ended, or stop it with stop_traffic_run\.$/,
    );
    expect(
      outcome(
        (await post(
          rpc(43, "tools/call", { name: "stop_traffic_run", arguments: { run_id: runId } }),
        )) as JsonRpcMessage,
      ).isError,
    ).toBe(false);
    expect(outcome((await post(sendOrders(44, 10))) as JsonRpcMessage).isError).toBe(false);
  });
});

describe("a capacity search within the budget", () => {
  const search = (id: number, highest: number) =>
    rpc(id, "tools/call", {
      name: "start_capacity_search",
      arguments: {
        objective: [{ metric: "p99_ms", op: "<", value: 300 }],
        lowest_rate: 1,
        highest_rate: highest,
        step_seconds: 100,
        mode: "simple",
      },
    });

  it("counts at its highest rate from start to end, pauses between steps included", async () => {
    const { post } = budgetedAccount(120);
    const over = outcome((await post(search(51, 3))) as JsonRpcMessage);
    expect(over.text).toBe(
      "a capacity search of up to 180 orders a minute is more than this account's synthetic traffic budget of 120 orders per minute (SYNTH_ORDERS_PER_MINUTE); ask for a lower highest_rate, or raise SYNTH_ORDERS_PER_MINUTE in the server environment",
    );
    const started = (await post(search(52, 1.5))) as JsonRpcMessage;
    expect(outcome(started).isError).toBe(false);
    const searchId = (started.result?.structuredContent as { search_id: string } | undefined)?.search_id;
    // 90 a minute are the search's: a batch of 40 does not fit beside it, one of 30 does.
    expect(outcome((await post(sendOrders(53, 40))) as JsonRpcMessage).text).toMatch(
      /running traffic runs send 90 a minute\./,
    );
    expect(outcome((await post(sendOrders(54, 30))) as JsonRpcMessage).isError).toBe(false);
    const stop = rpc(55, "tools/call", { name: "stop_capacity_search", arguments: { search_id: searchId } });
    expect(outcome((await post(stop)) as JsonRpcMessage).isError).toBe(false);
  });
});
