import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { callTool } from "../scripts/lib/mcp.ts";
import { checkExportedChain } from "../src/audit/chain-check.ts";
import {
  checkAcrossWidths,
  dividersAboveFirstRow,
  expectInFirstScreen,
  expectRelativeTimes,
  phoneContext,
  signInHere,
} from "./pages.ts";
import { useWorld } from "./world.ts";

// The human half of the operator story, in a real browser: a model proposes,
// a person opens the approval link, signs in, sees the change and approves,
// and only then does confirm_resolution apply it.
const world = useWorld();
const APPROVER_TOKEN = "acme-approver-dev-token";

/** What an approver must see before scrolling on a proposal waiting for a decision. */
function decisionParts(page: Page) {
  return {
    "the change": page.locator("h1"),
    "the risk": page.locator(".meta .badge[class*=risk-]"),
    "the money": page.locator("#money"),
    "the reason box": page.getByLabel("Reason (recorded in the audit log)"),
    Approve: page.getByRole("button", { name: "Approve" }),
    Reject: page.getByRole("button", { name: "Reject" }),
  };
}

/** Presses the queue page's "Export audit trail" button and reads the file the browser saved. */
async function exportFromQueue(page: Page): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export audit trail" }).click(),
  ]);
  return { name: download.suggestedFilename(), text: await readFile(await download.path(), "utf8") };
}

async function proposalId(tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await callTool(world().client, tool, args);
  expect(result.isError, result.text).toBe(false);
  return String(result.structured?.proposal_id);
}

it("an approver approves in the browser and the next confirm_resolution applies it", async () => {
  const proposal = await callTool(world().client, "propose_resolution", { order_id: "ORD-1008" });
  expect(proposal.isError, proposal.text).toBe(false);
  expect(proposal.structured?.action).toBe("notify_customer_backorder");
  const proposalId = String(proposal.structured?.proposal_id);

  const waiting = await callTool(world().client, "confirm_resolution", { proposal_id: proposalId });
  expect(waiting.structured?.status).toBe("approval_required");
  const approvalUrl = String(waiting.structured?.approval_url);
  expect(approvalUrl).toBe(`${world().server.url}/approvals/${proposalId}`);

  const context = await phoneContext(world().browser);
  const page = await context.newPage();

  // 1. The link alone grants nothing: a sign-in form, no order details.
  await page.goto(approvalUrl);
  await expect(page.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  expect(await page.content()).not.toContain("ORD-1008");

  // 2. Sign in as the approver.
  await signInHere(page, APPROVER_TOKEN, approvalUrl);

  // 3. The change is shown in words: the order, before and after, risk, expiry.
  const text = await page.locator("main").innerText();
  expect(await page.locator("h1").innerText()).toBe("Tell the customer the missing item is backordered");
  expect(text).toContain("Tell customer about backorder");
  expect(text).toContain("On hold");
  expect(text).toContain("→ Backordered");
  expect(text).toContain("SKU-7720 × 1 missing (no stock) at RNO-1");
  expect(text).toContain("Medium risk");
  expect(text).toMatch(/expires in 1[45] min/);
  expect(await page.locator("#money").innerText()).toBe("No money moves with this change.");
  expect(await page.locator("#status").innerText()).toBe("Waiting for approval");
  await expectRelativeTimes(page);
  await checkAcrossWidths(page, "review-pending");
  await expectInFirstScreen(page, "review-pending", decisionParts(page));
  // The evidence follows the decision.
  const order = await page
    .locator("main")
    .evaluate((main) => Array.from(main.querySelectorAll("h2")).map((h) => h.textContent));
  expect(order).toEqual(["The change", "Why", "The order now"]);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    expect(await dividersAboveFirstRow(page), `at ${width}px`).toEqual([]);
  }
  expect(await page.locator("main").innerText()).toContain(
    "Unchanged until the proposal is approved and the agent confirms it.",
  );

  // 4. Approve with a reason: the page says what happens next, and that nothing has yet.
  await page.getByLabel("Reason (recorded in the audit log)").fill("customer agreed to wait for the restock");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${approvalUrl}?decided=approve`);
  expect(await page.locator("#status").innerText()).toBe("Approved, not applied yet");
  expect(await page.locator("#next-step").innerText()).toContain(
    `Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposalId}.`,
  );
  await checkAcrossWidths(page, "review-approved");
  const approvedText = await page.locator("main").innerText();
  expect(approvedText).toContain("Unchanged until the agent confirms the approved proposal.");
  expect(approvedText).not.toContain("until the proposal is approved");

  // 5. Signing out ends the session on the server: the same cookie, copied into
  //    another browser, opens nothing.
  const session = (await context.cookies()).find((cookie) => cookie.name === "approver_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Strict");
  expect(session?.path).toBe("/");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${world().server.url}/approvals`);
  await expect(page.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  await context.close();
  const elsewhere = await world().browser.newContext();
  if (session) await elsewhere.addCookies([session]);
  const copied = await elsewhere.newPage();
  await copied.goto(approvalUrl);
  await expect(copied.getByLabel("Approver token").isVisible()).resolves.toBe(true);
  expect(await copied.content()).not.toContain("ORD-1008");

  // 6. The next confirm applies it, exactly once.
  const applied = await callTool(world().client, "confirm_resolution", { proposal_id: proposalId });
  expect(applied.structured?.status, applied.text).toBe("applied");
  expect((applied.structured?.outcome as { approved_by?: string } | null)?.approved_by).toBe(
    "Avery Approver (acme, local dev)",
  );
  const status = await callTool(world().client, "get_order_status", { order_id: "ORD-1008" });
  expect(status.structured).toEqual({ order_id: "ORD-1008", status: "backordered", version: 2 });

  // 7. The page shows that it was applied, by whom, and the order as it is now.
  await signInHere(copied, APPROVER_TOKEN, approvalUrl);
  expect(await copied.locator("#status").innerText()).toBe("Applied");
  const done = await copied.locator("#next-step").innerText();
  expect(done).toMatch(/^Applied (just now|\d+ s ago): tell customer about backorder on order ORD-1008\./);
  expect(done).toContain(
    "Approved by Avery Approver (acme, local dev), confirmed by Ada Ops (acme, local dev). The order went from version 1 to 2.",
  );
  expect(await copied.locator("main").innerText()).toContain("The change that was applied");
  await checkAcrossWidths(copied, "review-applied");
  await elsewhere.close();
});

it("the list tells proposals apart and shows what is at stake; replaced and out-of-date proposals say why", async () => {
  const pine = {
    recipient: "Northwind Receiving",
    line1: "12 Pine St",
    city: "Austin",
    region: "TX",
    postal_code: "78701",
    country: "US",
  };
  const replaced = await proposalId("prepare_address_change", { order_id: "ORD-1012", address: pine });
  const current = await proposalId("prepare_address_change", {
    order_id: "ORD-1012",
    address: { ...pine, line1: "40 Elm Ave", line2: "Dock 4" },
  });
  const readdress = await proposalId("prepare_address_change", {
    order_id: "ORD-1017",
    address: { ...pine, recipient: "Jonas Becker" },
  });
  const cancel = await proposalId("propose_resolution", { order_id: "ORD-1017" });

  const context = await phoneContext(world().browser);
  const page = await context.newPage();
  await page.goto(`${world().server.url}/approvals`);
  await signInHere(page, APPROVER_TOKEN, `${world().server.url}/approvals`);

  // The queue: each entry names its change, order, risk, amount and expiry.
  const entry = (id: string) => page.locator("li", { has: page.locator(`a[href="/approvals/${id}"]`) });
  expect(await entry(current).innerText()).toContain(
    "Ship to Northwind Receiving, 40 Elm Ave, Dock 4, Austin, TX 78701, US",
  );
  expect(await entry(readdress).innerText()).toContain("Ship to Jonas Becker, 12 Pine St, Austin, TX 78701, US");
  const cancelEntry = await entry(cancel).innerText();
  expect(cancelEntry).toContain("Cancel the duplicate order and refund it");
  expect(cancelEntry).toContain("Order ORD-1017");
  expect(cancelEntry).toContain("High risk");
  expect(cancelEntry).toContain("Refund $66.00");
  expect(cancelEntry).toMatch(/expires in 1[45] min/);
  expect(await entry(current).innerText()).toContain("Order value $185.00");
  await expect(entry(replaced).count()).resolves.toBe(0);
  await expectRelativeTimes(page);
  await checkAcrossWidths(page, "queue");

  // The refund is on the review page too; approve it and apply it.
  await page.goto(`${world().server.url}/approvals/${cancel}`);
  expect(await page.locator("#money").innerText()).toBe("Refunds $66.00 to the customer: the duplicate was charged.");
  await checkAcrossWidths(page, "review-refund");
  await expectInFirstScreen(page, "review-refund", decisionParts(page));
  await page.getByLabel("Reason (recorded in the audit log)").fill("same lines two minutes apart, customer confirmed");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${world().server.url}/approvals/${cancel}?decided=approve`);
  const applied = await callTool(world().client, "confirm_resolution", { proposal_id: cancel });
  expect(applied.structured?.status, applied.text).toBe("applied");

  // The audit trail from the queue page's button: first the order's story, then the whole chain.
  await page.goto(`${world().server.url}/approvals`);
  await page.getByLabel("Format").selectOption("ndjson");
  await page.getByLabel("Order (optional)").fill("ORD-1017");
  const story = await exportFromQueue(page);
  expect(story.name).toMatch(/^audit-acme-ORD-1017-\d{8}T\d{6}Z\.ndjson$/);
  const events = story.text
    .trimEnd()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as {
          order_id: string;
          account: string;
          event_type: string;
          proposal_id: string | null;
          reason: string;
        },
    );
  expect(events.every((event) => event.order_id === "ORD-1017" && event.account === "acme")).toBe(true);
  const ofCancel = events.filter((event) => event.proposal_id === cancel);
  expect(ofCancel.map((event) => event.event_type)).toEqual([
    "proposal_created",
    "proposal_approved",
    "resolution_applied",
  ]);
  expect(ofCancel[1]?.reason).toBe("same lines two minutes apart, customer confirmed");
  await page.getByLabel("Order (optional)").fill("");
  const whole = await exportFromQueue(page);
  expect(whole.name).toMatch(/^audit-acme-\d{8}T\d{6}Z\.ndjson$/);
  const chain = await checkExportedChain(whole.text);
  expect(chain.problems).toEqual([]);
  expect(chain.checked).toBeGreaterThan(events.length);
  await page.getByLabel("Format").selectOption("csv");
  const csv = await exportFromQueue(page);
  expect(csv.name).toMatch(/\.csv$/);
  expect(csv.text.split("\r\n")[0]).toBe(
    "seq,created_at,account,order_id,event_id,event_type,actor_kind,actor,reason,proposal_id,state_before,state_after,prev_hash,hash",
  );

  // The address change for the same order is now out of date, and says why.
  await page.goto(`${world().server.url}/approvals/${readdress}`);
  expect(await page.locator("#status").innerText()).toBe("Out of date");
  const stale = await page.locator("#next-step").innerText();
  expect(stale).toContain(
    "Out of date: order ORD-1017 moved from version 1 to 2 after this proposal was made. Nothing was changed.",
  );
  expect(stale).toContain("What changed on the order since it was proposed");
  expect(stale).toContain("cancelled the duplicate and returned the customer's money");
  await checkAcrossWidths(page, "review-stale");

  // The first address change was replaced by the second, and links to it.
  await page.goto(`${world().server.url}/approvals/${replaced}`);
  expect(await page.locator("#status").innerText()).toBe("Replaced");
  expect(await page.locator("#next-step").innerText()).toContain(
    `Replaced by a newer proposal for the same order: ${current}.`,
  );
  await page.locator("#next-step a").click();
  await page.waitForURL(`${world().server.url}/approvals/${current}`);
  expect(await page.locator("#status").innerText()).toBe("Waiting for approval");
  await checkAcrossWidths(page, "review-address");
  await expectInFirstScreen(page, "review-address", decisionParts(page));
  await context.close();
});
