import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../scripts/lib/dev-server.ts";
import { callTool, connect } from "../scripts/lib/mcp.ts";
import { launchBrowser } from "./browser.ts";

// The human half of the operator story, in a real browser: a model proposes,
// a person opens the approval link, signs in, sees the change and approves,
// and only then does confirm_resolution apply it.
let server: DevServer;
let client: Client;
let browser: Browser;

beforeAll(async () => {
  server = await startDevServer({ quiet: true });
  client = await connect(server.url, "acme-dev-token");
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});

it("an approver approves in the browser and the next confirm_resolution applies it", async () => {
  const proposal = await callTool(client, "propose_resolution", { order_id: "ORD-1008" });
  expect(proposal.isError, proposal.text).toBe(false);
  expect(proposal.structured?.action).toBe("notify_customer_backorder");
  const proposalId = String(proposal.structured?.proposal_id);

  const waiting = await callTool(client, "confirm_resolution", { proposal_id: proposalId });
  expect(waiting.structured?.status).toBe("approval_required");
  const approvalUrl = String(waiting.structured?.approval_url);
  expect(approvalUrl).toBe(`${server.url}/approvals/${proposalId}`);

  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();

  // 1. The link alone grants nothing: a sign-in form, no order details.
  await page.goto(approvalUrl);
  await expect(page.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  expect(await page.content()).not.toContain("ORD-1008");

  // 2. Sign in as the approver.
  await page.getByLabel("Approver token").fill("acme-approver-dev-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(approvalUrl);

  // 3. The change is shown: the order, before and after, risk, expiry.
  const text = await page.locator("main").innerText();
  expect(text).toContain("notify customer backorder for ORD-1008");
  expect(text).toContain("on_hold");
  expect(text).toContain("backordered");
  expect(text).toContain("medium risk");
  expect(text).toContain("expires");
  expect(await page.locator("#status").innerText()).toBe("pending approval");
  // Fits a phone: nothing wider than the viewport.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // 4. Approve with a reason.
  await page.getByLabel("Reason (recorded in the audit log)").fill("customer agreed to wait for the restock");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${approvalUrl}?decided=approve`);
  expect(await page.locator("#status").innerText()).toBe("approved");

  // 5. Signing out ends the session on the server: the same cookie, copied into
  //    another browser, opens nothing.
  const session = (await context.cookies()).find((cookie) => cookie.name === "approval_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Strict");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.url}/approvals`);
  await expect(page.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  await context.close();
  const elsewhere = await browser.newContext();
  if (session) await elsewhere.addCookies([session]);
  const copied = await elsewhere.newPage();
  await copied.goto(approvalUrl);
  await expect(copied.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  expect(await copied.content()).not.toContain("ORD-1008");
  await elsewhere.close();

  // 6. The next confirm applies it, exactly once.
  const applied = await callTool(client, "confirm_resolution", { proposal_id: proposalId });
  expect(applied.structured?.status, applied.text).toBe("applied");
  expect((applied.structured?.outcome as { approved_by?: string } | null)?.approved_by).toBe("Avery Approver (acme, local dev)");
  const status = await callTool(client, "get_order_status", { order_id: "ORD-1008" });
  expect(status.structured).toEqual({ order_id: "ORD-1008", status: "backordered", version: 2 });
});
