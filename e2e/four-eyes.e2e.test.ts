import type { BrowserContext, Page } from "playwright-core";
import { expect, it } from "vitest";
import { callTool } from "../scripts/lib/mcp.ts";
import { expectFits, expectRelativeTimes, phoneContext, signInHere } from "./pages.ts";
import { useWorld } from "./world.ts";

// Four eyes in a real browser: with FOUR_EYES_RISK=medium a medium-risk change
// needs two different approvers. The first approval leaves it waiting and says
// so; the agent's confirm still answers approval_required; the second approver
// finishes it, and the confirm applies it with both names on the record.
const world = useWorld({ FOUR_EYES_RISK: "medium" });
const FIRST = { token: "acme-approver-dev-token", name: "Avery Approver (acme, local dev)" };
const SECOND = { token: "acme-second-approver-dev-token", name: "Blake Approver (acme, local dev)" };

async function approveAs(
  person: { token: string },
  url: string,
  reason: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await phoneContext(world().browser);
  const page = await context.newPage();
  await page.goto(url);
  await signInHere(page, person.token, url);
  await page.getByLabel("Reason (recorded in the audit log)").fill(reason);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`${url}?decided=approve`);
  return { context, page };
}

it("a two-approver proposal goes from one approval to applied", async () => {
  const proposed = await callTool(world().client, "propose_resolution", { order_id: "ORD-1008" });
  expect(proposed.isError, proposed.text).toBe(false);
  expect(proposed.structured?.approvals_required).toBe(2);
  const proposalId = String(proposed.structured?.proposal_id);
  const url = `${world().server.url}/approvals/${proposalId}`;

  // 1. The first approver approves: the page says who did and that one more is needed.
  const first = await approveAs(FIRST, url, "customer agreed to wait");
  const afterOne = await first.page.locator("main").innerText();
  expect(afterOne).toContain("Two approvers");
  expect(afterOne).toContain(
    "Its risk is medium, and changes of medium risk or more (FOUR_EYES_RISK) need two approvers.",
  );
  expect(afterOne).toContain(`Approved by ${FIRST.name}`);
  expect(afterOne).toContain(
    "One more approver, other than those above and the proposer (Ada Ops (acme, local dev)), must approve.",
  );
  expect(await first.page.locator("#status").innerText()).toBe("Waiting for approval");
  // The same person cannot be both eyes: no Approve button for them any more.
  expect(await first.page.getByRole("button", { name: "Approve" }).count()).toBe(0);
  await expectRelativeTimes(first.page);
  expect(afterOne).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  await expectFits(first.page, "review-four-eyes");
  await first.context.close();

  // 2. The agent is still told to wait.
  const waiting = await callTool(world().client, "confirm_resolution", { proposal_id: proposalId });
  expect(waiting.structured?.status, waiting.text).toBe("approval_required");

  // 3. A second, different approver approves: now it is approved, not yet applied.
  const second = await approveAs(SECOND, url, "checked the restock date");
  expect(await second.page.locator("#status").innerText()).toBe("Approved, not applied yet");

  // 4. The confirm applies it once, with both approvers named.
  const applied = await callTool(world().client, "confirm_resolution", { proposal_id: proposalId });
  expect(applied.structured?.status, applied.text).toBe("applied");
  expect((applied.structured?.outcome as { approved_by?: string } | null)?.approved_by).toBe(
    `${FIRST.name} and ${SECOND.name}`,
  );
  await second.page.reload();
  expect(await second.page.locator("#status").innerText()).toBe("Applied");
  expect(await second.page.locator("#next-step").innerText()).toContain(`Approved by ${FIRST.name} and ${SECOND.name}`);
  await second.context.close();
});
