import { describe, expect, it } from "vitest";
import { EVERYTHING, reachOf } from "../../src/mcp/request-reach";

// A server holds only what its request can reach; a method this module does
// not know must see the whole server, never an empty one.

const call = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 1, method, params });

describe("reachOf", () => {
  it("a tool call reaches that one tool, and may stream only with a progress token", () => {
    const reach = reachOf(call("tools/call", { name: "send_orders" }));
    expect([
      reach.tool("send_orders"),
      reach.tool("check_target"),
      reach.resource("synthetic://catalog"),
      reach.mayStream,
    ]).toEqual([true, false, false, false]);
    expect(reachOf(call("tools/call", { name: "send_orders", _meta: { progressToken: 1 } })).mayStream).toBe(true);
  });

  it.each(["initialize", "ping", "server/discover", "notifications/initialized", "notifications/cancelled"])(
    "%s needs only the capabilities",
    (method) => {
      const reach = reachOf(call(method));
      expect([
        reach.tool("check_target"),
        reach.resource("synthetic://catalog"),
        reach.prompt("x"),
        reach.template(() => true),
      ]).toEqual([false, false, false, false]);
    },
  );

  it.each(["completion/complete", "resources/subscribe", "tasks/get", "some/future-method"])(
    "an unknown method %s sees everything",
    (method) => {
      expect(reachOf(call(method))).toBe(EVERYTHING);
    },
  );

  it("a batch or a body that is not one request sees everything", () => {
    expect(reachOf([call("ping"), call("tools/list")])).toBe(EVERYTHING);
    expect(reachOf("not a request")).toBe(EVERYTHING);
  });
});
