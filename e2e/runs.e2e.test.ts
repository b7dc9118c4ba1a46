import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { callTool } from "../scripts/lib/mcp.ts";
import { waitFor } from "../test/helpers/wait-for.ts";
import {
  checkAcrossWidths,
  expectFits,
  expectRelativeTimes,
  phoneContext,
  SCREENSHOT_DIR,
  screenshot,
  signInHere,
} from "./pages.ts";
import { useWorld } from "./world.ts";

// The run page in a real browser: an agent starts a traffic run, a person
// opens the run_url on a phone, signs in, and watches the chart fill while
// the page refreshes itself (the test never reloads it); once the run ends,
// it stops refreshing.
const world = useWorld();

/**
 * Reads the page until `done` holds. The page reloads itself, so a read can
 * land mid-navigation and fail: that read is simply taken again.
 */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  let last: T | undefined;
  const attempt = async (): Promise<{ value: T } | undefined> => {
    try {
      last = await read();
      return { value: last };
    } catch {
      // The document went away under the read; the next one is there in a moment.
      return undefined;
    }
  };
  const seen = await waitFor(attempt, (read) => read !== undefined && done(read.value), timeoutMs);
  if (seen === undefined || !done(seen.value))
    throw new Error(`gave up after ${timeoutMs} ms; last read ${JSON.stringify(last)}`);
  return seen.value;
}

function sentPoints(page: Page): Promise<number> {
  return page
    .locator('#counts-chart path[data-series="answered"]')
    .getAttribute("data-points", { timeout: 1000 })
    .then(Number);
}

it("the run_url shows a live chart on a phone that refreshes by itself, and stops refreshing when the run ends", async () => {
  const started = await callTool(world().client, "start_traffic_run", {
    rate_per_second: 4,
    duration_seconds: 12,
    mode: "seeded",
    ramp_seconds: 0,
  });
  expect(started.isError, started.text).toBe(false);
  const runId = String(started.structured?.run_id);
  const runUrl = String(started.structured?.run_url);
  expect(runUrl).toBe(`${world().server.url}/runs/${runId}`);

  const context = await phoneContext(world().browser);
  const page = await context.newPage();
  await page.goto(runUrl);
  // The link alone shows nothing of the run; sign-in comes back to it.
  await expect(page.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  await expect(page.locator("svg").count()).resolves.toBe(0);
  expect(await page.locator("main").innerText()).not.toContain("Traffic run");
  await signInHere(page, "acme-approver-dev-token", runUrl);

  // Live: the page says it refreshes itself (no script)...
  expect(await page.locator("#status").innerText()).toBe("Running");
  expect(await page.locator('meta[http-equiv="refresh"]').getAttribute("content")).toBe("2");
  expect(await page.locator("#live").innerText()).toBe("Live: this page refreshes every 2 seconds.");
  await screenshot(page, "run-live");
  await expectFitsStill(page, "run-live");

  // ...and does: nobody reloads it here, yet a new document replaces this one and its chart has grown.
  const before = await sentPoints(page);
  await page.evaluate(() => Object.assign(window, { seenBefore: true }));
  const grown = await eventually(
    async () => ({ newDocument: await page.evaluate(() => !("seenBefore" in window)), points: await sentPoints(page) }),
    (now) => now.newDocument && now.points > before,
    10_000,
  );
  expect(grown.points).toBeGreaterThan(before);

  // It keeps refreshing until the run has ended; the last refresh shows the end and carries no refresh.
  await eventually(
    () => page.locator("#status").innerText({ timeout: 1000 }),
    (status) => status !== "Running",
    40_000,
  );
  expect(await page.locator("#status").innerText()).toBe("Completed");
  await expect(page.locator('meta[http-equiv="refresh"]').count()).resolves.toBe(0);
  expect(await page.locator("#live").innerText()).toBe("This run has ended; the page no longer refreshes.");
  const text = await page.locator("main").innerText();
  expect(text).toContain("of 48 (100%)");
  expect(text).toContain("HTTP 201: 48");
  expect(text).toContain("hold 4/s");
  expect(text).toContain("Verdict: passed");

  // Both charts are inline SVG with a point per interval for every series.
  for (const chart of ["#counts-chart", "#latency-chart"]) {
    const paths = await page
      .locator(`${chart} svg path`)
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ points: Number(n.getAttribute("data-points")), d: n.getAttribute("d") ?? "" })),
      );
    expect(paths.length).toBeGreaterThanOrEqual(2);
    for (const path of paths) {
      expect(path.points).toBeGreaterThanOrEqual(4);
      expect(path.d).toMatch(/^M[\d.]+ [\d.]+( [ML][\d.]+ [\d.]+)+/);
    }
  }
  // Lines stay apart where they overlap: each series has its own colour or dash pattern, its latest
  // value beside its name, and the y axis is labelled at several ticks.
  for (const chart of ["#counts-chart", "#latency-chart"]) {
    const looks = await page
      .locator(`${chart} svg path`)
      .evaluateAll((nodes) => nodes.map((n) => `${getComputedStyle(n).stroke} ${getComputedStyle(n).strokeDasharray}`));
    expect(new Set(looks).size).toBe(looks.length);
    const legend = await page.locator(`${chart} [data-legend] b`).allInnerTexts();
    expect(legend.length).toBe(looks.length);
    const ticks = await page.locator(`${chart} .ticks span`).allInnerTexts();
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks[0]).toMatch(/^0\b/);
  }
  // Once ended, the legends give the run's own figures, not the drain's last point (0/s).
  const legends = Object.fromEntries(
    await page
      .locator("[data-legend]")
      .evaluateAll((nodes) => nodes.map((n) => [n.getAttribute("data-legend"), n.querySelector("b")?.textContent])),
  ) as Record<string, string>;
  expect(legends.planned).toBe("4/s");
  expect(legends.answered).toBe("4/s");
  expect(text).toContain("Achieved rate");
  await expectRelativeTimes(page);
  await checkAcrossWidths(page, "run-completed");
  // At 390 px the latency table fits: each row stacks its figures under its label, every one named,
  // so nothing is hidden off to the right (checkAcrossWidths checked no card scrolls sideways).
  await page.setViewportSize({ width: 390, height: 844 });
  const table = page.locator("#latency-table .scroll");
  const sizes = await table.evaluate((node) => ({ scroll: node.scrollWidth, client: node.clientWidth }));
  expect(sizes.scroll).toBeLessThanOrEqual(sizes.client);
  expect(
    await page
      .locator('#latency-table td[data-label="p99.9"]')
      .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell, "::before").content)),
  ).toEqual(['"p99.9 "', '"p99.9 "', '"p99.9 "']);
  await page.locator("#latency-table").screenshot({ path: `${SCREENSHOT_DIR}/run-latency-table-390.png` });
  await context.close();
});

/**
 * A live page refreshes itself every 2 s, which would pull the document away
 * mid-check: its HTML is checked as it stands, in a page of its own without
 * the refresh.
 */
async function expectFitsStill(live: Page, name: string): Promise<void> {
  const html = (await live.content()).replace(/<meta http-equiv="refresh"[^>]*>/, "");
  const still = await live.context().newPage();
  await still.setContent(html);
  await expectFits(still, name);
  await still.close();
}

it("a capacity search's page fits a phone and a laptop, running and stopped, with its steps table whole", async () => {
  const started = await callTool(world().client, "start_capacity_search", {
    objective: [{ metric: "p99_ms", op: "<", value: 2000 }],
    lowest_rate: 20,
    highest_rate: 40,
    step_seconds: 5,
    mode: "seeded",
  });
  expect(started.isError, started.text).toBe(false);
  const searchId = String(started.structured?.search_id);
  const searchUrl = String(started.structured?.search_url);
  const context = await phoneContext(world().browser);
  const page = await context.newPage();
  await page.goto(searchUrl);
  await signInHere(page, "acme-approver-dev-token", searchUrl);
  await expectFitsStill(page, "search-running");
  const stopped = await callTool(world().client, "stop_capacity_search", { search_id: searchId });
  expect(stopped.isError, stopped.text).toBe(false);
  await page.goto(searchUrl);
  expect(await page.locator("#status").innerText()).toBe("Stopped");
  await expect(page.locator("#steps [data-step]").count()).resolves.toBeGreaterThan(0);
  await expectFits(page, "search-stopped");
  // At 390 px the verdict of every step is on the screen, not scrolled off to the right.
  await page.setViewportSize({ width: 390, height: 844 });
  const offScreen = await page
    .locator("#steps td.verdict")
    .evaluateAll((cells) => cells.filter((cell) => cell.getBoundingClientRect().right > window.innerWidth).length);
  expect(offScreen).toBe(0);
  await context.close();
});

it("another account's approver gets the same answer as for an unknown run", async () => {
  const started = await callTool(world().client, "start_traffic_run", {
    rate_per_second: 2,
    duration_seconds: 1,
    mode: "simple",
    ramp_seconds: 0,
  });
  expect(started.isError, started.text).toBe(false);
  const runUrl = String(started.structured?.run_url);

  const context = await phoneContext(world().browser);
  const page = await context.newPage();
  await page.goto(runUrl);
  await signInHere(page, "globex-approver-dev-token", runUrl);
  const foreign = await page.locator("main").innerText();
  await page.goto(`${world().server.url}/runs/R-unknown-00000000`);
  expect(await page.locator("main").innerText()).toBe(foreign);
  expect(foreign).toContain("Run not found");
  await context.close();
});
