import { describe, expect, it } from "vitest";
import { EVERYTHING, needsOf } from "../../src/mcp/request-needs";

// A server holds only what its request needs; a method this module does
// not know must see the whole server, never an empty one.

const call = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 1, method, params });

describe("needsOf", () => {
  it("a tool call reaches that one tool, and may stream only with a progress token", () => {
    const needs = needsOf(call("tools/call", { name: "send_orders" }));
    expect([
      needs.tool("send_orders"),
      needs.tool("check_target"),
      needs.resource("synthetic://catalog"),
      needs.mayStream,
    ]).toEqual([true, false, false, false]);
    expect(needsOf(call("tools/call", { name: "send_orders", _meta: { progressToken: 1 } })).mayStream).toBe(true);
  });

  it.each(["initialize", "ping", "server/discover", "notifications/initialized", "notifications/cancelled"])(
    "%s needs only the capabilities",
    (method) => {
      const needs = needsOf(call(method));
      expect([
        needs.tool("check_target"),
        needs.resource("synthetic://catalog"),
        needs.prompt("x"),
        needs.template(() => true),
      ]).toEqual([false, false, false, false]);
    },
  );

  it.each(["completion/complete", "resources/subscribe", "tasks/get", "some/future-method"])(
    "an unknown method %s sees everything",
    (method) => {
      expect(needsOf(call(method))).toBe(EVERYTHING);
    },
  );

  it("a batch or a body that is not one request sees everything", () => {
    expect(needsOf([call("ping"), call("tools/list")])).toBe(EVERYTHING);
    expect(needsOf("not a request")).toBe(EVERYTHING);
  });
});
