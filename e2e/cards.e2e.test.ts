import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../scripts/lib/dev-server.ts";
import { connect } from "../scripts/lib/mcp.ts";
import { bundleAppBridge, mountWithAppBridge } from "./app-bridge-host.ts";
import { launchBrowser } from "./browser.ts";
import { inkPixels, mountCard, type CardCsp, type CardMessage, type MountedCard, type ToolResultForCard } from "./card-host.ts";

// The MCP Apps cards in a real browser, fed the way a host feeds them: the
// tool names its card in _meta.ui.resourceUri, the host reads that resource
// from the server, puts it in a sandboxed iframe under the card's CSP, and
// posts the real tool result from the same server. Each card must draw the
// result (checked by its text and by a screenshot that is not blank), fit a
// narrow panel, and send nothing but the handshake, its size and, on a click,
// ui/open-link.

const SCREENSHOTS = path.join(tmpdir(), "order-ops-edge-cards");
const NARROW = 360;
const WIDE = 720;
/** Everything a card may ever send: no tools/call, so no card can confirm anything. */
const ALLOWED_METHODS = ["ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed", "ui/open-link"];

let server: DevServer;
let client: Client;
let browser: Browser;
let page: Page;
let consoleErrors: string[];
const cards = new Map<string, { html: string; csp: CardCsp }>();

interface Exception {
  order_id: string;
  exception_type: string;
  priority: string;
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResultForCard & { structuredContent: Record<string, unknown> }> {
  return (await client.callTool({ name, arguments: args })) as ToolResultForCard & { structuredContent: Record<string, unknown> };
}

/** The card a tool names, read from the server the way a host reads it. */
function cardOf(tool: string): { html: string; csp: CardCsp } {
  const card = cards.get(tool);
  if (!card) throw new Error(`${tool} names no card`);
  return card;
}

async function show(tool: string, args: Record<string, unknown>, result: ToolResultForCard, width = NARROW): Promise<MountedCard> {
  return mountCard(page, cardOf(tool), args, result, width);
}

const cardText = () => page.frameLocator("#card-frame").locator("main").innerText();

/** Saves a screenshot of the card and checks it is not blank: clearly more ink than the card waiting for data. */
async function expectDrawn(label: string): Promise<void> {
  const shot = await page.locator("#card-frame").screenshot({ path: path.join(SCREENSHOTS, `${label}.png`) });
  const drawn = await inkPixels(page, shot);
  const tool = label.split("-")[0] ?? "";
  const waitingCard = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
  try {
    await mountCard(waitingCard, cardOf(tool), {}, null, NARROW);
    const waiting = await inkPixels(waitingCard, await waitingCard.locator("#card-frame").screenshot());
    expect(drawn.ink, `${label}: ${drawn.ink} of ${drawn.total} pixels inked, waiting card ${waiting.ink}`).toBeGreaterThan(Math.max(2_000, waiting.ink * 4));
  } finally {
    await waitingCard.close();
  }
}

/** Nothing wider than the panel, and the host's frame as tall as the card said it is (ui/notifications/size-changed). */
async function expectFits(): Promise<void> {
  const inner = await page.frameLocator("#card-frame").locator("html").evaluate((html) => ({ overflow: html.scrollWidth - html.clientWidth, height: html.scrollHeight }));
  expect(inner.overflow).toBeLessThanOrEqual(0);
  const frameHeight = await page.locator("#card-frame").evaluate((frame) => frame.getBoundingClientRect().height);
  expect(frameHeight).toBeGreaterThanOrEqual(inner.height);
}

function methodsOf(messages: CardMessage[]): string[] {
  return [...new Set(messages.map((m) => m.method).filter((m): m is string => m !== undefined))];
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startDevServer({ quiet: true });
  client = await connect(server.url, "acme-dev-token");
  browser = await launchBrowser();
  const { tools } = await client.listTools();
  for (const tool of tools) {
    const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    if (uri === undefined) continue;
    const read = await client.readResource({ uri });
    const content = read.contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: { csp?: CardCsp } } } | undefined;
    expect(content?.mimeType).toBe("text/html;profile=mcp-app");
    cards.set(tool.name, { html: content?.text ?? "", csp: content?._meta?.ui?.csp ?? {} });
  }
});

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});

beforeEach(async () => {
  // Tall enough for the longest card: Chromium paints a sandboxed frame only where the viewport reaches.
  page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
  consoleErrors = [];
  // CSP violations and script errors inside the card land here too.
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
});

afterEach(async () => {
  await page.close();
  expect(consoleErrors).toEqual([]);
});

describe("the exception queue card", () => {
  it.each([NARROW, WIDE])("draws every stuck order, most urgent first, at %i px", async (width) => {
    const result = await call("list_order_exceptions");
    const exceptions = result.structuredContent.exceptions as Exception[];
    expect(exceptions.length).toBeGreaterThanOrEqual(5);
    const card = await show("list_order_exceptions", {}, result, width);

    const text = await cardText();
    expect(text).toContain(`${exceptions.length} active`);
    const rows = page.frameLocator("#card-frame").locator("li[data-order]");
    expect(await rows.count()).toBe(exceptions.length);
    expect(await rows.first().getAttribute("data-order")).toBe(exceptions[0]?.order_id);
    for (const exception of exceptions) expect(text).toContain(exception.order_id);
    expect(text).toContain("P1");
    expect(text).toContain("Duplicate order");
    expect(text).not.toContain("duplicate_order");
    await expectFits();
    await expectDrawn(`list_order_exceptions-${width}`);
    expect(methodsOf(await card.messages()).every((m) => ALLOWED_METHODS.includes(m))).toBe(true);
  });
});

describe("the order card", () => {
  it("draws the order, its exception, the evidence and the whole timeline", async () => {
    const queue = await call("list_order_exceptions");
    const duplicate = (queue.structuredContent.exceptions as Exception[]).find((e) => e.exception_type === "duplicate_order");
    expect(duplicate).toBeDefined();
    const args = { order_id: duplicate?.order_id };
    const result = await call("get_order_details", args);
    const details = result.structuredContent as { order_id: string; duplicate: { of_order_id: string }; timeline: { detail: string }[] };
    await show("get_order_details", args, result);

    const text = await cardText();
    expect(text).toContain(details.order_id);
    expect(text).toContain(details.duplicate.of_order_id);
    expect(text.toLowerCase()).toContain("timeline");
    expect(details.timeline.length).toBeGreaterThan(0);
    expect(await page.frameLocator("#card-frame").locator(".timeline li").count()).toBe(details.timeline.length);
    // Free text keeps its words; only snake_case tokens read with spaces.
    for (const entry of details.timeline) expect(text).toContain(entry.detail.replaceAll("_", " "));
    await expectFits();
    await expectDrawn("get_order_details-duplicate");
  });

  it("shows a tool error as its message", async () => {
    const result = await call("get_order_details", { order_id: "ORD-nope" });
    expect(result.isError).toBe(true);
    await show("get_order_details", { order_id: "ORD-nope" }, result);
    expect(await cardText()).toContain("order not found");
  });

  it("renders hostile text as text: no markup from the data reaches the page", async () => {
    const result = await call("get_order_details", { order_id: "ORD-1004" });
    const payload = `<img src=x onerror="parent.postMessage({jsonrpc:'2.0',id:99,method:'tools/call',params:{name:'confirm_resolution'}},'*')"></script><script>document.title='owned'</script>`;
    const details = result.structuredContent as { timeline: { at: string; event: string; detail: string }[]; customer: Record<string, unknown> };
    const hostile = {
      ...details,
      order_id: payload,
      customer: { ...details.customer, name: payload },
      timeline: [{ at: details.timeline[0]?.at ?? new Date().toISOString(), event: payload, detail: payload }],
    };
    const card = await show("get_order_details", { order_id: "ORD-1004" }, { content: [{ type: "text", text: JSON.stringify(hostile) }], structuredContent: hostile });
    const frame = page.frameLocator("#card-frame");
    expect(await frame.locator("img").count()).toBe(0);
    expect(await frame.locator("script").count()).toBe(1);
    expect(await frame.locator("h1").innerText()).toBe(payload);
    expect(await frame.locator("html").evaluate(() => document.title)).toBe("Order evidence");
    await page.waitForTimeout(200);
    expect(methodsOf(await card.messages()).every((m) => ALLOWED_METHODS.includes(m))).toBe(true);
  });
});

describe("the proposal card", () => {
  it("shows status, change, expiry and the diff; its button opens the approval page and approves nothing", async () => {
    const args = { order_id: "ORD-1008" };
    const result = await call("propose_resolution", args);
    const proposal = result.structuredContent as { proposal_id: string; approval_url: string; change_summary: string; expected_changes: { before: string; after: string }[] };
    const card = await show("propose_resolution", args, result);
    const frame = page.frameLocator("#card-frame");

    expect(await frame.locator("#status").innerText()).toBe("Waiting for approval");
    expect(await frame.locator("#summary").innerText()).toBe(proposal.change_summary);
    expect(await frame.locator("#expiry").innerText()).toMatch(/^in 1[45] minutes \(/);
    expect(await frame.locator("#expiry time").getAttribute("title")).toMatch(/\d{4}/);
    expect(proposal.expected_changes.length).toBeGreaterThan(0);
    expect(await frame.locator("#diff tbody tr").count()).toBe(proposal.expected_changes.length);
    const text = await cardText();
    const cells = await frame.locator("#diff tbody td").allInnerTexts();
    // The same values, with snake_case words ("on_hold") read as words.
    expect(cells).toEqual(proposal.expected_changes.flatMap((row) => [row.before, row.after].map((value) => value.replaceAll("_", " "))));
    expect(text).toContain("Tell the customer it is backordered");
    expect(text).toContain("This card cannot approve or apply anything.");
    await expectFits();
    await expectDrawn("propose_resolution-pending");

    await frame.getByRole("button", { name: "Open approval page" }).click();
    await page.waitForFunction(() => (window as unknown as { openedLinks: string[] }).openedLinks.length > 0);
    expect(await card.openedLinks()).toEqual([proposal.approval_url]);
    expect(methodsOf(await card.messages()).sort()).toEqual([...ALLOWED_METHODS].sort());
    // Opening the page decided nothing.
    const after = await call("get_proposal", { proposal_id: proposal.proposal_id });
    expect(after.structuredContent.status).toBe("pending_approval");
  });

  it("shows a confirmation that still waits for approval, with its message and the button", async () => {
    const proposal = await call("propose_resolution", { order_id: "ORD-1011" });
    const args = { proposal_id: proposal.structuredContent.proposal_id };
    const result = await call("confirm_resolution", args);
    expect(result.structuredContent.status).toBe("approval_required");
    await show("confirm_resolution", args, result, WIDE);
    const text = await cardText();
    expect(text).toContain("Waiting for approval");
    expect(text).toContain(String(result.structuredContent.message));
    expect(await page.frameLocator("#card-frame").getByRole("button", { name: "Open approval page" }).count()).toBe(1);
    await expectDrawn("confirm_resolution-approval_required");
  });

  it("says why a superseded address change can no longer be approved", async () => {
    const address = (line1: string) => ({ recipient: "Priya Raman", line1, city: "Austin", region: "TX", postal_code: "78701", country: "US" });
    const first = await call("prepare_address_change", { order_id: "ORD-1020", address: address("12 Pine St") });
    await call("prepare_address_change", { order_id: "ORD-1020", address: address("14 Pine St") });
    const args = { proposal_id: first.structuredContent.proposal_id };
    const result = await call("get_proposal", args);
    expect(result.structuredContent.status).toBe("superseded");
    await show("get_proposal", args, result);
    const frame = page.frameLocator("#card-frame");
    expect(await frame.locator("#status").innerText()).toBe("Replaced by a newer proposal");
    expect(await frame.locator("#reason").innerText()).toBe(String(result.structuredContent.status_reason));
    expect(await frame.locator("#summary").innerText()).toContain("12 Pine St");
    expect(await frame.locator("#expiry").count()).toBe(0);
    expect(await frame.locator("#next").innerText()).toContain("can no longer be approved");
    await expectDrawn("get_proposal-superseded");
  });
});

describe("behind the maintained host implementation (AppBridge from @modelcontextprotocol/ext-apps)", () => {
  let bridgeScript: string;
  beforeAll(async () => {
    bridgeScript = await bundleAppBridge();
  });

  it("each card completes the handshake, draws its result, and the proposal card's link reaches the host", async () => {
    const queue = await call("list_order_exceptions");
    const first = (queue.structuredContent.exceptions as Exception[])[0];
    const details = await call("get_order_details", { order_id: first?.order_id });
    const proposal = await call("propose_resolution", { order_id: "ORD-1014" });
    const frame = page.frameLocator("#card-frame");
    for (const [tool, args, result, expected] of [
      ["list_order_exceptions", {}, queue, String(first?.order_id)],
      ["get_order_details", { order_id: first?.order_id }, details, String(first?.order_id)],
      ["propose_resolution", { order_id: "ORD-1014" }, proposal, String(proposal.structuredContent.change_summary)],
    ] as const) {
      await mountWithAppBridge(page, bridgeScript, cardOf(tool), args, result);
      await frame.locator("section").waitFor();
      expect(await frame.locator("main").innerText(), tool).toContain(expected);
    }
    await frame.getByRole("button", { name: "Open approval page" }).click();
    await page.waitForFunction(() => (window as unknown as { bridgeState: { openedLinks: string[] } }).bridgeState.openedLinks.length > 0);
    const state = await page.evaluate(() => (window as unknown as { bridgeState: { openedLinks: string[]; sizes: { height?: number }[] } }).bridgeState);
    expect(state.openedLinks).toEqual([proposal.structuredContent.approval_url]);
    expect(state.sizes.some((size) => (size.height ?? 0) > 200)).toBe(true);
  });
});
