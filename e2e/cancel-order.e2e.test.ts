import { expect, it } from "vitest";
import { callTool } from "../scripts/lib/mcp.ts";
import { checkAcrossWidths, expectInFirstScreen, phoneContext, signInHere } from "./pages.ts";
import { useWorld } from "./world.ts";

// cancel_order in a real browser: the agent proposes cancelling an order whose
// payment was captured (ORD-1013, $48.00, not shipped), the approver sees in
// the queue and on the page that it refunds $48.00, approves, and the agent's
// apply_approved_change cancels and refunds it once.
const world = useWorld();
const APPROVER_TOKEN = "acme-approver-dev-token";
const REFUND = "Refunds $48.00 to the customer: the order was charged and has not shipped.";

it("an approver approves a cancellation of a charged order, the page names the refund, and the apply makes it", async () => {
  const proposed = await callTool(world().client, "cancel_order", {
    order_id: "ORD-1013",
    reason: "customer asked to cancel by email",
  });
  expect(proposed.isError, proposed.text).toBe(false);
  expect(proposed.structured?.action).toBe("cancel_order");
  const proposalId = String(proposed.structured?.proposal_id);
  const approvalUrl = String(proposed.structured?.approval_url);
  expect(approvalUrl).toBe(`${world().server.url}/approvals/${proposalId}`);

  const context = await phoneContext(world().browser);
  const page = await context.newPage();

  // The queue says what is at stake before anyone opens the proposal.
  const queue = `${world().server.url}/approvals`;
  await page.goto(queue);
  await signInHere(page, APPROVER_TOKEN, queue);
  const entry = await page.locator("li", { has: page.locator(`a[href="/approvals/${proposalId}"]`) }).innerText();
  expect(entry).toContain("Cancel the order before it ships");
  expect(entry).toContain("Order ORD-1013");
  expect(entry).toContain("High risk");
  expect(entry).toContain("Refund $48.00");

  // The review page: the change and the refund in words, the decision on the first screen.
  await page.goto(approvalUrl);
  expect(await page.locator("h1").innerText()).toBe("Cancel the order before it ships");
  expect(await page.locator("#money").innerText()).toBe(REFUND);
  const text = await page.locator("main").innerText();
  expect(text).toContain("Cancel order");
  expect(text).toContain("customer asked to cancel by email");
  expect(text).toContain("→ Refunded");
  expect(text).toContain("→ Cancelled");
  await checkAcrossWidths(page, "review-cancel-order");
  await expectInFirstScreen(page, "review-cancel-order", {
    "the change": page.locator("h1"),
    "the money": page.locator("#money"),
    Approve: page.getByRole("button", { name: "Approve" }),
  });

  await page.getByLabel("Reason (recorded in the audit log)").fill("the customer confirmed by email");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${approvalUrl}?decided=approve`);
  expect(await page.locator("#status").innerText()).toBe("Approved, not applied yet");

  // The agent applies it once; the order is cancelled and refunded.
  const applied = await callTool(world().client, "apply_approved_change", { proposal_id: proposalId });
  expect(applied.structured?.status, applied.text).toBe("applied");
  const status = await callTool(world().client, "get_order_status", { order_id: "ORD-1013" });
  expect(status.structured).toEqual({ order_id: "ORD-1013", status: "cancelled", version: 2 });
  const order = await callTool(world().client, "get_order_details", { order_id: "ORD-1013" });
  expect((order.structured?.payment as { state?: string } | undefined)?.state).toBe("refunded");

  // The page says what was done, in the past tense.
  await page.goto(approvalUrl);
  expect(await page.locator("#status").innerText()).toBe("Applied");
  expect(await page.locator("#money").innerText()).toBe(REFUND.replace("Refunds", "Refunded"));
  expect(await page.locator("#next-step").innerText()).toMatch(
    /^Applied (just now|\d+ s ago): cancel order on order ORD-1013\./,
  );
  await checkAcrossWidths(page, "review-cancel-order-applied");
  await context.close();
});
