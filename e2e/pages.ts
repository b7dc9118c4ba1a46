import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Frame, Locator, Page } from "playwright-core";
import { expect } from "vitest";

/** Screenshots land here (git ignores it), one per page and width, for a person to look at. */
export const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "screenshots");

export const PHONE = { width: 360, height: 780 } as const;
export const DESKTOP = { width: 1280, height: 900 } as const;

export function phoneContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
}

/** Signs in on the sign-in form the page is showing, and waits to land on `landing`. */
export async function signInHere(page: Page, token: string, landing: string): Promise<void> {
  await page.getByLabel("Approver token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(landing);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
}

/**
 * What a person would see as broken text on this page at its current width:
 * a word whose letters sit on more than one line (wrapped mid-word), a label,
 * badge, time or id that wrapped at all, and a page wider than the screen.
 * A Frame works too: the MCP Apps cards are checked inside their iframe.
 */
export function layoutProblems(page: Page | Frame): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    // Boxes on one line overlap vertically (a <code> box sits a little higher than the text beside it); a new line
    // starts below them all.
    const lineCount = (range: Range) => {
      const rects = Array.from(range.getClientRects())
        .filter((r) => r.width > 0 && r.height > 0)
        .sort((a, b) => a.top - b.top);
      let lines = 0;
      let bottom = Number.NEGATIVE_INFINITY;
      for (const rect of rects) {
        if (rect.top >= bottom - 2) {
          lines++;
          bottom = rect.bottom;
        } else {
          bottom = Math.max(bottom, rect.bottom);
        }
      }
      return lines;
    };
    const main = document.querySelector("main");
    if (!main) return ["no <main>"];
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of (node.textContent ?? "").matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (lineCount(range) > 1) problems.push(`word broken across lines: ${word[0]}`);
      }
    }
    for (const element of Array.from(main.querySelectorAll(".label, .badge, time, code, .mono, .nowrap, th"))) {
      const range = document.createRange();
      range.selectNodeContents(element);
      if (lineCount(range) > 1) problems.push(`wrapped: ${element.textContent ?? ""}`);
      if (getComputedStyle(element).whiteSpace !== "nowrap" && element.tagName !== "TH")
        problems.push(`may wrap: ${element.textContent ?? ""}`);
    }
    const overflow = document.documentElement.scrollWidth - window.innerWidth;
    if (overflow > 0) problems.push(`page is ${overflow}px wider than the screen`);
    return problems;
  });
}

/** Tables whose first row has a line above it, where a card's edge already is; by each table's first header. */
export function dividersAboveFirstRow(page: Page): Promise<string[]> {
  return page.locator("main table").evaluateAll((tables) =>
    tables.flatMap((table) => {
      const row = table.querySelector("tr");
      const cell = row?.querySelector("th, td");
      if (!row || !cell) return [];
      const lined = [row, cell].some((element) => Number.parseFloat(getComputedStyle(element).borderTopWidth) > 0);
      return lined ? [cell.textContent ?? ""] : [];
    }),
  );
}

/** Internal names (snake_case) left in the visible text; proposal ids are not names. */
export async function internalNames(page: Page | Frame): Promise<string[]> {
  const text = await page.locator("main").innerText();
  return [...text.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)].map((m) => m[0]).filter((name) => !name.startsWith("prop_"));
}

/**
 * What is wider than it may be at the current width: the page or any card or
 * scrolling region that scrolls sideways (scroll width over client width), and
 * any text that runs past the right edge of its card, where a reader would
 * find it cut off.
 */
export function fitProblems(page: Page | Frame): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}.${element.className} "${(element.textContent ?? "").trim().slice(0, 40)}"`;
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth)
      problems.push(`the page scrolls sideways by ${root.scrollWidth - root.clientWidth}px`);
    for (const element of Array.from(document.querySelectorAll("main .card, main .scroll")))
      if (element.scrollWidth > element.clientWidth + 1)
        problems.push(`${name(element)} scrolls sideways by ${element.scrollWidth - element.clientWidth}px`);
    const main = document.querySelector("main");
    if (!main) return ["no <main>"];
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if ((node.textContent ?? "").trim() === "") continue;
      const box = node.parentElement?.closest(".card") ?? main;
      const edge = box.getBoundingClientRect().right;
      const range = document.createRange();
      range.selectNodeContents(node);
      const right = Math.max(...Array.from(range.getClientRects()).map((rect) => rect.right));
      if (right > edge + 1)
        problems.push(
          `text cut off by ${Math.round(right - edge)}px: "${(node.textContent ?? "").trim().slice(0, 60)}"`,
        );
    }
    return problems;
  });
}

/** Where before/after screenshots go for a person comparing a change (SHOTS_DIR and SHOTS_LABEL), if anywhere. */
async function comparisonShot(page: Page, name: string): Promise<void> {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const label = process.env.SHOTS_LABEL ? `-${process.env.SHOTS_LABEL}` : "";
  await page.screenshot({ path: path.join(dir, `${name}-${width}${label}.png`), fullPage: true });
}

/** The widths no page may scroll sideways at: a large phone and a laptop. */
export const FIT_WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
] as const;

/** Nothing scrolls sideways and no text is cut off at 390 and 1280 px; screenshots of both for comparing. */
export async function expectFits(page: Page, name: string): Promise<void> {
  for (const viewport of FIT_WIDTHS) {
    await page.setViewportSize(viewport);
    await comparisonShot(page, name);
    const problems = await fitProblems(page);
    // For a "before" set of screenshots of code that does not fit yet: say what is wrong and go on.
    if (process.env.FIT_REPORT_ONLY) console.log(`${name} at ${viewport.width}px:`, JSON.stringify(problems));
    else expect(problems, `${name} at ${viewport.width}px`).toEqual([]);
  }
  await page.setViewportSize(PHONE);
}

/** Between the phone and the desktop: a large phone, a small and a large tablet, a small laptop. */
const IN_BETWEEN = [414, 600, 768, 1024] as const;

/**
 * The page reads well from a phone's width to a desktop's: screenshots at both
 * ends for a person to look at, and no broken text at any width checked.
 */
export async function checkAcrossWidths(page: Page, name: string): Promise<void> {
  for (const viewport of [PHONE, ...IN_BETWEEN.map((width) => ({ width, height: 900 })), DESKTOP]) {
    await page.setViewportSize(viewport);
    if (viewport === PHONE || viewport === DESKTOP) await screenshot(page, name);
    expect(await layoutProblems(page), `${name} at ${viewport.width}px`).toEqual([]);
  }
  expect(await internalNames(page), name).toEqual([]);
  await expectFits(page, name);
}

/** The screens a decision must fit on without scrolling: a laptop and a large phone. */
export const FIRST_SCREENS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/**
 * Each of `parts` lies wholly inside the first screen at both sizes, with the
 * page scrolled to the top: a person sees them before scrolling. A screenshot
 * of exactly that first screen is saved for each size.
 */
export async function expectInFirstScreen(
  page: Page,
  name: string,
  parts: Readonly<Record<string, Locator>>,
): Promise<void> {
  for (const viewport of FIRST_SCREENS) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => window.scrollTo(0, 0));
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, `${name}-first-screen-${viewport.width}x${viewport.height}.png`),
    });
    for (const [part, locator] of Object.entries(parts)) {
      const box = await locator.boundingBox();
      const where = `${name}: ${part} at ${viewport.width}x${viewport.height}`;
      expect(box, `${where} is not shown`).not.toBeNull();
      if (!box) continue;
      expect(box.y, where).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, `${where} ends below the first screen`).toBeLessThanOrEqual(viewport.height);
    }
  }
  await page.setViewportSize(PHONE);
}

/** Every <time> shows a relative time and carries the exact one on hover. */
export async function expectRelativeTimes(page: Page): Promise<void> {
  const times = await page
    .locator("main time")
    .evaluateAll((nodes) => nodes.map((n) => ({ text: n.textContent ?? "", title: n.getAttribute("title") ?? "" })));
  expect(times.length).toBeGreaterThan(0);
  for (const time of times) {
    expect(time.text).toMatch(/^(in .+|.+ ago|just now|in under a minute)$/);
    expect(time.title).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  }
}
