import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_MIME_TYPE, APPS_EXTENSION_ID, appToolMeta } from "../../src/mcp/apps";
import { orderCards } from "../../src/mcp/tools/orders.tools";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { CLIENT_GENERATIONS, connectClient, type McpTestClient } from "../helpers/mcp-client";
import { initializeRequest, type JsonRpcMessage, modernHeaders, modernRpc, postMcp } from "../helpers/mcp-raw";
import { callTool, prepareAddress, propose } from "../helpers/ops";
import { ACME_TOKEN } from "../helpers/tokens";
import { structuredOf, type ToolCallResult } from "../helpers/tool-results";

// MCP Apps (io.modelcontextprotocol/ui): which tools name a card, what the
// cards are, and that a client without Apps sees exactly what it saw before.
// The cards' behaviour in a browser is tested in e2e/cards.e2e.test.ts and e2e/proposal-card.e2e.test.ts.

const QUEUE = "ui://order-ops/exception-queue.html";
const ORDER = "ui://order-ops/order.html";
const PROPOSAL = "ui://order-ops/proposal.html";

/** Every tool with a card, and its card. No other tool carries `_meta`. */
const EXPECTED_CARDS: Readonly<Record<string, string>> = {
  list_order_exceptions: QUEUE,
  get_order_details: ORDER,
  propose_resolution: PROPOSAL,
  prepare_address_change: PROPOSAL,
  cancel_order: PROPOSAL,
  get_proposal: PROPOSAL,
  confirm_resolution: PROPOSAL,
  apply_approved_change: PROPOSAL,
  wait_for_approval: PROPOSAL,
};

/** No origin at all: the card loads nothing, fetches nothing, frames nothing. */
const NO_DOMAINS = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

interface ListedTool {
  name: string;
  _meta?: Record<string, unknown>;
}

interface UiContent {
  uri: string;
  mimeType?: string;
  text?: string;
  _meta?: unknown;
}

describe("the documented constants", () => {
  it("match the maintained MCP Apps SDK's", () => {
    expect(APPS_EXTENSION_ID).toBe(EXTENSION_ID);
    expect(APP_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(
      Object.keys(appToolMeta(orderCards[0] ?? { name: "", uri: "ui://x", title: "", description: "", html: "" })),
    ).toContain(RESOURCE_URI_META_KEY);
  });

  it("each card has its own ui:// URI and name", () => {
    expect(new Set(orderCards.map((card) => card.uri)).size).toBe(orderCards.length);
    expect(new Set(orderCards.map((card) => card.name)).size).toBe(orderCards.length);
    expect(orderCards.map((card) => card.uri).sort()).toEqual([...new Set(Object.values(EXPECTED_CARDS))].sort());
  });
});

describe.each(CLIENT_GENERATIONS)("through the $label (protocol $protocol)", (generation) => {
  let client: McpTestClient;
  let tools: ListedTool[];

  beforeAll(async () => {
    client = await generation.connect(ACME_TOKEN, "apps");
    tools = (await client.listTools()).tools as ListedTool[];
  });
  afterAll(async () => {
    await client.close();
  });

  it("exactly the queue, order and proposal tools name a card", () => {
    const named = Object.fromEntries(
      tools
        .filter((t) => t._meta !== undefined)
        .map((t) => [t.name, (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri]),
    );
    expect(named).toEqual(EXPECTED_CARDS);
  });

  it.each(Object.entries(EXPECTED_CARDS))(
    "%s: _meta.ui names %s, the legacy key agrees, and no card may call it",
    (name, uri) => {
      // wait_for_approval may also run as an MCP task, and says so beside its card (test/mcp/tasks.test.ts).
      const task = name === "wait_for_approval" ? { "io.modelcontextprotocol/tasks": { taskSupport: "optional" } } : {};
      expect(tools.find((t) => t.name === name)?._meta).toEqual({
        ui: { resourceUri: uri, visibility: ["model"] },
        "ui/resourceUri": uri,
        ...task,
      });
    },
  );

  it("lists each card once as an MCP Apps resource with an empty CSP", async () => {
    const { resources } = await client.listResources();
    const cards = resources.filter((r) => r.uri.startsWith("ui://"));
    expect(cards.map((r) => r.uri).sort()).toEqual([ORDER, PROPOSAL, QUEUE].sort());
    for (const card of cards) {
      expect(card).toMatchObject({ mimeType: APP_MIME_TYPE, _meta: { ui: { csp: NO_DOMAINS, prefersBorder: true } } });
      expect((card as { description?: string }).description?.length).toBeGreaterThan(40);
    }
  });

  it.each([QUEUE, ORDER, PROPOSAL])("%s reads as one self-contained HTML document", async (uri) => {
    const read = await client.readResource({ uri });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as UiContent;
    expect(content).toMatchObject({
      uri,
      mimeType: APP_MIME_TYPE,
      _meta: { ui: { csp: NO_DOMAINS, prefersBorder: true } },
    });
    const html = content.text ?? "";
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(html).toContain("connect-src 'none'");
    // Nothing external: no URL of any kind, so no script, style, font or image from elsewhere.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    // Data is never parsed as HTML.
    expect(html).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    // The only requests a card makes: the handshake, and asking the host to open a link.
    expect([...new Set([...html.matchAll(/request\("([^"]+)"/g)].map((m) => m[1]))].sort()).toEqual([
      "ui/initialize",
      "ui/open-link",
    ]);
    expect(html).not.toContain("tools/call");
    // A few kilobytes of inline script, not an SDK bundle.
    expect(html.length).toBeLessThan(24_000);
  });

  it("every card tool still answers text that is exactly JSON.stringify(structuredContent), and nothing else", async () => {
    const orderId = await insertFreshOrder({ exception: "fulfillment_hold_missing_sku" });
    const proposal = await propose(client, orderId);
    const address = {
      recipient: "Ada Lovelace",
      line1: "12 Pine St",
      city: "Austin",
      region: "TX",
      postal_code: "78701",
      country: "US",
    };
    const addressProposal = await prepareAddress(client, await insertFreshOrder({ exception: null }), address);
    const calls: [string, Record<string, unknown>][] = [
      ["list_order_exceptions", {}],
      ["get_order_details", { order_id: orderId }],
      ["propose_resolution", { order_id: orderId }],
      ["prepare_address_change", { order_id: orderId, address }],
      ["cancel_order", { order_id: orderId, reason: "customer asked to cancel" }],
      ["get_proposal", { proposal_id: proposal.proposal_id }],
      ["confirm_resolution", { proposal_id: proposal.proposal_id }],
      ["apply_approved_change", { proposal_id: addressProposal.proposal_id }],
      ["wait_for_approval", { proposal_id: proposal.proposal_id, timeout_seconds: 1 }],
    ];
    expect(calls.map(([name]) => name).sort()).toEqual(Object.keys(EXPECTED_CARDS).sort());
    for (const [name, args] of calls) {
      const result = await callTool(client, name, args);
      structuredOf(result);
      // 2026-07-28 results carry the protocol's own _meta (serverInfo); nothing of ours is added.
      const { _meta: meta, ...rest } = result as ToolCallResult & { _meta?: Record<string, unknown> };
      expect(Object.keys(rest).sort(), name).toEqual(["content", "structuredContent"]);
      expect(
        Object.keys(meta ?? {}).filter((key) => !key.startsWith("io.modelcontextprotocol/")),
        name,
      ).toEqual([]);
    }
  });
});

describe("a client that renders Apps and one that does not", () => {
  async function call(
    capabilities: Record<string, unknown>,
    name: string,
    args: Record<string, unknown>,
  ): Promise<unknown> {
    const response = await postMcp(
      modernRpc(1, "tools/call", {
        name,
        arguments: args,
        _meta: { "io.modelcontextprotocol/clientCapabilities": capabilities },
      }),
      {
        token: ACME_TOKEN,
        headers: modernHeaders("tools/call", name),
      },
    );
    const body = (await response.json()) as JsonRpcMessage;
    expect(body.error).toBeUndefined();
    return body.result;
  }

  it("get the same result, byte for byte", async () => {
    const client = await connectClient(ACME_TOKEN, "apps-compare");
    const proposal = await propose(
      client,
      await insertFreshOrder({ exception: "fulfillment_incomplete_carrier_timeout" }),
    );
    await client.close();
    const withApps = { extensions: { [APPS_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } } };
    for (const [name, args] of [
      ["get_proposal", { proposal_id: proposal.proposal_id }],
      ["confirm_resolution", { proposal_id: proposal.proposal_id }],
    ] as const) {
      const plain = await call({}, name, args);
      expect(JSON.stringify(await call(withApps, name, args))).toBe(JSON.stringify(plain));
      expect(plain).toMatchObject({ structuredContent: { proposal_id: proposal.proposal_id } });
    }
  });
});

describe("the server declares the extension", () => {
  it("in server/discover (2026-07-28)", async () => {
    const response = await postMcp(modernRpc(1, "server/discover"), {
      token: ACME_TOKEN,
      headers: modernHeaders("server/discover"),
    });
    const body = (await response.json()) as JsonRpcMessage;
    expect(body.result?.capabilities).toMatchObject({ extensions: { [APPS_EXTENSION_ID]: {} } });
  });

  it("in the initialize result (2025-11-25)", async () => {
    const response = await postMcp(initializeRequest(1, "2025-11-25"), {
      token: ACME_TOKEN,
      accept: "application/json",
    });
    const body = (await response.json()) as JsonRpcMessage;
    expect(body.result?.capabilities).toMatchObject({ extensions: { [APPS_EXTENSION_ID]: {} } });
  });
});
