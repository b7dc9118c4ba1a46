import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../scripts/lib/dev-server.ts";
import { connect } from "../scripts/lib/mcp.ts";
import { bundleAppBridge, mountWithAppBridge } from "./app-bridge-host.ts";
import { launchBrowser } from "./browser.ts";
import { inkPixels, mountCard, type CardCsp, type CardMessage, type MountedCard, type ToolResultForCard } from "./card-host.ts";
import { internalNames, layoutProblems } from "./pages.ts";

// The MCP Apps cards in a real browser, fed the way a host feeds them: the
// tool names its card in _meta.ui.resourceUri, the host reads that resource
// from the server, puts it in a sandboxed iframe under the card's CSP, and
// posts the real tool result from the same server. Each card must draw the
// result (checked by its text and by a screenshot that is not blank), fit a
// narrow panel without breaking a word or an id (the approval app's layout
// checks, e2e/pages.ts), speak the approval app's vocabulary, and send nothing
// but the handshake, its size and, on a click, ui/open-link.

/** The approval app's own wording (src/orders/labels.ts), which the cards must match. */
interface Wording {
  changeValueLines(field: string, value: string): string[];
  humanizeText(text: string): string;
}
// Loaded by a computed name, so `tsc -p tsconfig.node.json` (Node's module rules) does not
// type-check the Worker's sources behind it, whose imports are written for the bundler.
const WORDING_MODULE = "../src/orders/labels.ts";
const { changeValueLines, humanizeText } = (await import(WORDING_MODULE)) as Wording;

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

/** The card's own document, for checks that run inside it. */
function cardFrame(): Frame {
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error("no card frame");
  return frame;
}

/** The approval app's checks, inside the card: nothing broken mid-word or mid-id, and no internal names. */
async function expectReadable(label: string): Promise<void> {
  expect(await layoutProblems(cardFrame()), label).toEqual([]);
  expect(await internalNames(cardFrame()), label).toEqual([]);
}

/** The diff cells as the approval page words them (orders/labels.ts), one line per entry. */
function wordedCells(rows: readonly { field: string; before: string; after: string }[]): string[] {
  return rows.flatMap((row) => [row.before, row.after].map((value) => changeValueLines(row.field, value).join("\n")));
}

/** Approves through the scripted approval API, as a person with an approver token would. */
async function approve(proposalId: string): Promise<void> {
  const response = await fetch(`${server.url}/api/approvals/${proposalId}`, {
    method: "POST",
    headers: { authorization: "Bearer acme-approver-dev-token", "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve", reason: "checked with the customer" }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

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
    // Summaries in words: "Card declined twice (insufficient funds)", as on the approval page.
    for (const exception of result.structuredContent.exceptions as { summary: string }[]) expect(text).toContain(humanizeText(exception.summary));
    expect(text).not.toContain("insufficient_funds");
    await expectReadable(`list_order_exceptions at ${width}px`);
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
    // Free text keeps its words; known names read as the approval app words them.
    for (const entry of details.timeline) expect(text).toContain(humanizeText(entry.detail));
    await expectReadable("get_order_details");
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
    // The same values in the approval page's words: "On hold: an item is out of stock (open, …)", not the raw names.
    expect(cells).toEqual(wordedCells(proposal.expected_changes as { field: string; before: string; after: string }[]));
    expect(cells.join(" ")).not.toMatch(/_|\bactive\b/);
    expect(text).toContain("Tell customer about backorder");
    expect(text).toContain("This card cannot approve or apply anything.");
    expect(await frame.locator("#next .mono").innerText()).toBe(proposal.proposal_id);
    await expectReadable("propose_resolution");
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
    const frame = page.frameLocator("#card-frame");
    expect(text).toContain("Waiting for approval");
    // The model's instruction (raw link, ISO deadline) is said in words for a person: the next step, the expiry and the button.
    expect(text).not.toContain(String(result.structuredContent.message));
    expect(text).not.toContain(String(result.structuredContent.expires_at));
    expect(await frame.locator("#next").innerText()).toBe(`Nothing has changed. A person with an approver token approves or rejects it on the approval page; then ask the agent to confirm proposal ${String(args.proposal_id)}.`);
    expect(await frame.locator("#expiry").innerText()).toMatch(/^in 1[45] minutes \(/);
    expect(await frame.getByRole("button", { name: "Open approval page" }).count()).toBe(1);
    await expectReadable("confirm_resolution approval_required");
    await show("confirm_resolution", args, result, NARROW);
    await expectReadable("confirm_resolution approval_required at 360px");
    await expectFits();
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
    expect(await frame.locator("#status").innerText()).toBe("Replaced");
    expect(await frame.locator("#reason").innerText()).toBe(String(result.structuredContent.status_reason));
    expect(await frame.locator("#summary").innerText()).toContain("12 Pine St");
    expect(await frame.locator("#expiry").count()).toBe(0);
    expect(await frame.locator("#next").innerText()).toContain("can no longer be approved");
    await expectReadable("get_proposal superseded");
    await expectDrawn("get_proposal-superseded");
  });

  it("get_proposal after approval says nothing has changed yet, and after apply shows what changed", async () => {
    const proposed = await call("propose_resolution", { order_id: "ORD-1017" });
    const proposalId = String(proposed.structuredContent.proposal_id);
    await approve(proposalId);
    const args = { proposal_id: proposalId };
    const frame = page.frameLocator("#card-frame");

    const approved = await call("get_proposal", args);
    expect(approved.structuredContent.status).toBe("approved");
    await show("get_proposal", args, approved);
    expect(await frame.locator("#status").innerText()).toBe("Approved, not applied yet");
    expect(await frame.locator("#next").innerText()).toBe(`Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposalId}.`);
    expect(await frame.locator("#decided").innerText()).toContain("Avery Approver (acme, local dev)");
    expect(await frame.locator("#diff").locator("xpath=preceding-sibling::h2[1]").innerText()).toMatch(/^what will change$/i);
    await expectReadable("get_proposal approved");
    await expectFits();
    await expectDrawn("get_proposal-approved");

    expect((await call("confirm_resolution", args)).structuredContent.status).toBe("applied");
    const applied = await call("get_proposal", args);
    const outcome = applied.structuredContent.outcome as { changes: { field: string; before: string; after: string }[]; order_version_before: number; order_version_after: number };
    expect(applied.structuredContent.status).toBe("applied");
    await show("get_proposal", args, applied);
    expect(await frame.locator("#status").innerText()).toBe("Applied");
    expect(await frame.locator("#next").innerText()).toBe("Applied: cancel duplicate order on order ORD-1017. Nothing more to do.");
    expect(await frame.locator("#applied").innerText()).toContain(`by Ada Ops (acme, local dev), approved by Avery Approver (acme, local dev); version ${outcome.order_version_before} → ${outcome.order_version_after}`);
    expect(await frame.locator("#diff").locator("xpath=preceding-sibling::h2[1]").innerText()).toMatch(/^what changed$/i);
    const cells = await frame.locator("#diff tbody td").allInnerTexts();
    expect(cells).toEqual(wordedCells(outcome.changes));
    expect(cells).toContain("Refunded");
    expect(cells).toContain("Cancelled");
    expect(await frame.locator("#expiry").count()).toBe(0);
    await expectReadable("get_proposal applied");
    await expectFits();
    await expectDrawn("get_proposal-applied");
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
