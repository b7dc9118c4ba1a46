import type { Page } from "playwright-core";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bundleAppBridge, mountWithAppBridge } from "./app-bridge-host.ts";
import { ALLOWED_METHODS, type Exception, humanizeText, methodsOf, NARROW, useCards, WIDE } from "./card-world.ts";

// The exception queue card and the order card in a real browser, through the
// test host (card-host.ts) and through the maintained AppBridge host. How a
// host feeds a card, and what every card must do, is in card-world.ts; the
// proposal card is in proposal-card.e2e.test.ts.

const cards = useCards();
const { call, cardOf, cardText, expectDrawn, expectFits, expectReadable, show } = cards;
let page: Page;
beforeEach(() => {
  page = cards.page();
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
    for (const exception of result.structuredContent.exceptions as { summary: string }[])
      expect(text).toContain(humanizeText(exception.summary));
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
    const duplicate = (queue.structuredContent.exceptions as Exception[]).find(
      (e) => e.exception_type === "duplicate_order",
    );
    expect(duplicate).toBeDefined();
    const args = { order_id: duplicate?.order_id };
    const result = await call("get_order_details", args);
    const details = result.structuredContent as {
      order_id: string;
      duplicate: { of_order_id: string };
      timeline: { detail: string }[];
    };
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
    const details = result.structuredContent as {
      timeline: { at: string; event: string; detail: string }[];
      customer: Record<string, unknown>;
    };
    const hostile = {
      ...details,
      order_id: payload,
      customer: { ...details.customer, name: payload },
      timeline: [{ at: details.timeline[0]?.at ?? new Date().toISOString(), event: payload, detail: payload }],
    };
    const card = await show(
      "get_order_details",
      { order_id: "ORD-1004" },
      { content: [{ type: "text", text: JSON.stringify(hostile) }], structuredContent: hostile },
    );
    const frame = page.frameLocator("#card-frame");
    expect(await frame.locator("img").count()).toBe(0);
    expect(await frame.locator("script").count()).toBe(1);
    expect(await frame.locator("h1").innerText()).toBe(payload);
    expect(await frame.locator("html").evaluate(() => document.title)).toBe("Order evidence");
    await page.waitForTimeout(200);
    expect(methodsOf(await card.messages()).every((m) => ALLOWED_METHODS.includes(m))).toBe(true);
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
    await page.waitForFunction(
      () => (window as unknown as { bridgeState: { openedLinks: string[] } }).bridgeState.openedLinks.length > 0,
    );
    const state = await page.evaluate(
      () => (window as unknown as { bridgeState: { openedLinks: string[]; sizes: { height?: number }[] } }).bridgeState,
    );
    expect(state.openedLinks).toEqual([proposal.structuredContent.approval_url]);
    expect(state.sizes.some((size) => (size.height ?? 0) > 200)).toBe(true);
  });
});
