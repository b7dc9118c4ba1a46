import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Frame, Page } from "playwright-core";
import { afterEach, beforeAll, beforeEach, expect } from "vitest";
import {
  type CardCsp,
  type CardMessage,
  inkPixels,
  type MountedCard,
  mountCard,
  type ToolResultForCard,
} from "./card-host.ts";
import { internalNames, layoutProblems } from "./pages.ts";
import { useWorld } from "./world.ts";

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

export { humanizeText };

const SCREENSHOTS = path.join(tmpdir(), "order-ops-edge-cards");
export const NARROW = 360;
export const WIDE = 720;
/** Everything a card may ever send: no tools/call, so no card can confirm anything. */
export const ALLOWED_METHODS = [
  "ui/initialize",
  "ui/notifications/initialized",
  "ui/notifications/size-changed",
  "ui/open-link",
];

export interface Exception {
  order_id: string;
  exception_type: string;
  priority: string;
}

export type CardResult = ToolResultForCard & { structuredContent: Record<string, unknown> };

/** The diff cells as the approval page words them (orders/labels.ts), one line per entry. */
export function wordedCells(rows: readonly { field: string; before: string; after: string }[]): string[] {
  return rows.flatMap((row) => [row.before, row.after].map((value) => changeValueLines(row.field, value).join("\n")));
}

export function methodsOf(messages: CardMessage[]): string[] {
  return [...new Set(messages.map((m) => m.method).filter((m): m is string => m !== undefined))];
}

export interface CardWorld {
  /** The page of the current test: a fresh one per test, whose console must stay free of errors. */
  page(): Page;
  call(name: string, args?: Record<string, unknown>): Promise<CardResult>;
  /** The card a tool names, read from the server the way a host reads it. */
  cardOf(tool: string): { html: string; csp: CardCsp };
  show(tool: string, args: Record<string, unknown>, result: ToolResultForCard, width?: number): Promise<MountedCard>;
  cardText(): Promise<string>;
  /** The approval app's checks, inside the card: nothing broken mid-word or mid-id, and no internal names. */
  expectReadable(label: string): Promise<void>;
  /** Saves a screenshot of the card and checks it is not blank: clearly more ink than the card waiting for data. */
  expectDrawn(label: string): Promise<void>;
  /**
   * Nothing wider than the panel, and the host's frame as tall as the card said it is (ui/notifications/size-changed).
   */
  expectFits(): Promise<void>;
  /** Approves through the scripted approval API, as a person with an approver token would. */
  approve(proposalId: string): Promise<void>;
}

/** A fresh `wrangler dev` and browser for one file's card tests (see useWorld), with every card read once. */
export function useCards(): CardWorld {
  const world = useWorld();
  const cards = new Map<string, { html: string; csp: CardCsp }>();
  let page: Page | undefined;
  let consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const { client } = world();
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      if (uri === undefined) continue;
      const read = await client.readResource({ uri });
      const content = read.contents[0] as
        | { text?: string; mimeType?: string; _meta?: { ui?: { csp?: CardCsp } } }
        | undefined;
      expect(content?.mimeType).toBe("text/html;profile=mcp-app");
      cards.set(tool.name, { html: content?.text ?? "", csp: content?._meta?.ui?.csp ?? {} });
    }
  });

  beforeEach(async () => {
    // Tall enough for the longest card: Chromium paints a sandboxed frame only where the viewport reaches.
    const fresh = await world().browser.newPage({ viewport: { width: 1280, height: 2400 } });
    page = fresh;
    consoleErrors = [];
    // CSP violations and script errors inside the card land here too.
    fresh.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    fresh.on("pageerror", (error) => consoleErrors.push(error.message));
  });

  afterEach(async () => {
    await page?.close();
    expect(consoleErrors).toEqual([]);
  });

  const currentPage = (): Page => {
    if (!page) throw new Error("no page outside a test");
    return page;
  };

  const cardOf = (tool: string): { html: string; csp: CardCsp } => {
    const card = cards.get(tool);
    if (!card) throw new Error(`${tool} names no card`);
    return card;
  };

  /** The card's own document, for checks that run inside it. */
  const cardFrame = (): Frame => {
    const frame = currentPage()
      .frames()
      .find((f) => f !== currentPage().mainFrame());
    if (!frame) throw new Error("no card frame");
    return frame;
  };

  return {
    page: currentPage,
    cardOf,
    call: async (name, args = {}) => (await world().client.callTool({ name, arguments: args })) as CardResult,
    show: (tool, args, result, width = NARROW) => mountCard(currentPage(), cardOf(tool), args, result, width),
    cardText: () => currentPage().frameLocator("#card-frame").locator("main").innerText(),
    async expectReadable(label) {
      expect(await layoutProblems(cardFrame()), label).toEqual([]);
      expect(await internalNames(cardFrame()), label).toEqual([]);
    },
    async expectDrawn(label) {
      const shot = await currentPage()
        .locator("#card-frame")
        .screenshot({ path: path.join(SCREENSHOTS, `${label}.png`) });
      const drawn = await inkPixels(currentPage(), shot);
      const tool = label.split("-")[0] ?? "";
      const waitingCard = await world().browser.newPage({ viewport: { width: 1280, height: 2400 } });
      try {
        await mountCard(waitingCard, cardOf(tool), {}, null, NARROW);
        const waiting = await inkPixels(waitingCard, await waitingCard.locator("#card-frame").screenshot());
        expect(
          drawn.ink,
          `${label}: ${drawn.ink} of ${drawn.total} pixels inked, waiting card ${waiting.ink}`,
        ).toBeGreaterThan(Math.max(2_000, waiting.ink * 4));
      } finally {
        await waitingCard.close();
      }
    },
    async expectFits() {
      const frameLocator = currentPage().frameLocator("#card-frame");
      const inner = await frameLocator
        .locator("html")
        .evaluate((html) => ({ overflow: html.scrollWidth - html.clientWidth, height: html.scrollHeight }));
      expect(inner.overflow).toBeLessThanOrEqual(0);
      const frameHeight = await currentPage()
        .locator("#card-frame")
        .evaluate((frame) => frame.getBoundingClientRect().height);
      expect(frameHeight).toBeGreaterThanOrEqual(inner.height);
    },
    async approve(proposalId) {
      const response = await fetch(`${world().server.url}/api/approvals/${proposalId}`, {
        method: "POST",
        headers: { authorization: "Bearer acme-approver-dev-token", "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve", reason: "checked with the customer" }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
    },
  };
}
