import { describe, expect, it } from "vitest";
import { jsonAnswer, postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// A "__proto__" key in a tool's arguments was accepted while every other unknown key is refused: the copies the
// schemas make assign it, which sets a prototype instead of keeping a key, so the strict input never saw it.

const SEARCH = {
  objective: [{ metric: "p99_ms", op: "<", value: 300 }],
  lowest_rate: 1,
  highest_rate: 2,
  mode: "simple",
};

async function call(body: string): Promise<string> {
  return JSON.stringify(await jsonAnswer(await postMcp(body, { token: ACME_TOKEN, accept: "application/json" })));
}

describe('a "__proto__" key', () => {
  it.each([
    ['{"__proto__":{"x":1},', "as written"],
    ['{"\\u005f_proto__":{"x":1},', "spelled with an escape"],
  ])("in start_capacity_search's arguments (%s) is refused, and no search starts", async (prefix) => {
    const args = `${prefix}${JSON.stringify(SEARCH).slice(1)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_capacity_search","arguments":${args}}}`;
    const answer = await call(body);
    expect(answer).toContain("__proto__");
    expect(answer).not.toContain("search_id");
  });

  it("anywhere else in a message is refused too, and a value that merely says proto is not", async () => {
    expect(
      await call(JSON.stringify({ ...rpc(2, "tools/list"), __proto__x: 1 }).replace("__proto__x", "__proto__")),
    ).toContain("__proto__");
    const listed = await call(
      JSON.stringify(rpc(3, "tools/call", { name: "get_order_status", arguments: { order_id: "proto" } })),
    );
    expect(listed).not.toContain("__proto__");
  });
});
