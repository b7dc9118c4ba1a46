import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { isPlain2025Request } from "../../src/mcp/transport/protocol-versions";
import { initializeRequest, rpc } from "../helpers/mcp-raw";

// isPlain2025Request spares a 2025 request the SDK's second look at it; it may
// only ever say "2025" where the SDK says so too, and must leave the rest.

function posted(message: unknown, header?: string): Request {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (header !== undefined) headers["mcp-protocol-version"] = header;
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) });
}

const PLAIN: [string, unknown, string | undefined][] = [
  ["ping without a header", rpc(1, "ping"), undefined],
  ["tools/list with a 2025-11-25 header", rpc(2, "tools/list"), "2025-11-25"],
  ["a header with spaces around it", rpc(3, "tools/list"), " 2025-06-18 "],
  [
    "a progress token in _meta",
    rpc(4, "tools/call", { name: "x", arguments: {}, _meta: { progressToken: 7 } }),
    "2025-03-26",
  ],
  ["initialize", initializeRequest(5, "2025-11-25"), undefined],
  ["a notification", { jsonrpc: "2.0", method: "notifications/initialized" }, undefined],
];

const LEFT_TO_THE_SDK: [string, unknown, string | undefined][] = [
  ["a 2026-07-28 header", rpc(1, "ping"), "2026-07-28"],
  ["an envelope claim", rpc(2, "ping", { _meta: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" } }), undefined],
  [
    "an envelope claim under a 2025 header",
    rpc(3, "ping", { _meta: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" } }),
    "2025-11-25",
  ],
  ["a revision nobody serves", rpc(4, "ping"), "2031-01-01"],
  ["a batch", [rpc(5, "ping")], undefined],
  ["a response", { jsonrpc: "2.0", id: 6, result: {} }, undefined],
];

describe("isPlain2025Request", () => {
  it.each(PLAIN)("says 2025 for %s, as the SDK does", async (_name, message, header) => {
    expect(isPlain2025Request(message, header ?? null)).toBe(true);
    expect(await isLegacyRequest(posted(message, header), message)).toBe(true);
  });

  it.each(LEFT_TO_THE_SDK)("leaves %s to the SDK", (_name, message, header) => {
    expect(isPlain2025Request(message, header ?? null)).toBe(false);
  });
});
