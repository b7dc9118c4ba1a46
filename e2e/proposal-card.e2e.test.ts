import type { Page } from "playwright-core";
import { beforeEach, describe, expect, it } from "vitest";
import { ALLOWED_METHODS, methodsOf, NARROW, useCards, WIDE, wordedCells } from "./card-world.ts";

// The proposal card in a real browser, through the test host (card-host.ts):
// every state of a proposal in the approval app's words, and a button that
// opens the approval page and approves nothing. How a host feeds a card, and
// what every card must do, is in card-world.ts.

const cards = useCards();
const { approve, call, cardText, expectDrawn, expectFits, expectReadable, show } = cards;
let page: Page;
beforeEach(() => {
  page = cards.page();
});

describe("the proposal card", () => {
  it("shows status, change, expiry and the diff; its button opens the approval page and approves nothing", async () => {
    const args = { order_id: "ORD-1008" };
    const result = await call("propose_resolution", args);
    const proposal = result.structuredContent as {
      proposal_id: string;
      approval_url: string;
      change_summary: string;
      expected_changes: { before: string; after: string }[];
    };
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
    // The model's instruction (raw link, ISO deadline) is said in words for a person: the next step, the expiry and the
    // button.
    expect(text).not.toContain(String(result.structuredContent.message));
    expect(text).not.toContain(String(result.structuredContent.expires_at));
    expect(await frame.locator("#next").innerText()).toBe(
      `Nothing has changed. A person with an approver token approves or rejects it on the approval page; then ask the agent to confirm proposal ${String(args.proposal_id)}.`,
    );
    expect(await frame.locator("#expiry").innerText()).toMatch(/^in 1[45] minutes \(/);
    expect(await frame.getByRole("button", { name: "Open approval page" }).count()).toBe(1);
    await expectReadable("confirm_resolution approval_required");
    await show("confirm_resolution", args, result, NARROW);
    await expectReadable("confirm_resolution approval_required at 360px");
    await expectFits();
    await expectDrawn("confirm_resolution-approval_required");
  });

  it("says why a superseded address change can no longer be approved", async () => {
    const address = (line1: string) => ({
      recipient: "Priya Raman",
      line1,
      city: "Austin",
      region: "TX",
      postal_code: "78701",
      country: "US",
    });
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
    expect(await frame.locator("#next").innerText()).toBe(
      `Approved. Nothing has changed yet: ask the agent to confirm proposal ${proposalId}.`,
    );
    expect(await frame.locator("#decided").innerText()).toContain("Avery Approver (acme, local dev)");
    expect(await frame.locator("#diff").locator("xpath=preceding-sibling::h2[1]").innerText()).toMatch(
      /^what will change$/i,
    );
    await expectReadable("get_proposal approved");
    await expectFits();
    await expectDrawn("get_proposal-approved");

    expect((await call("confirm_resolution", args)).structuredContent.status).toBe("applied");
    const applied = await call("get_proposal", args);
    const outcome = applied.structuredContent.outcome as {
      changes: { field: string; before: string; after: string }[];
      order_version_before: number;
      order_version_after: number;
    };
    expect(applied.structuredContent.status).toBe("applied");
    await show("get_proposal", args, applied);
    expect(await frame.locator("#status").innerText()).toBe("Applied");
    expect(await frame.locator("#next").innerText()).toBe(
      "Applied: cancel duplicate order on order ORD-1017. Nothing more to do.",
    );
    expect(await frame.locator("#applied").innerText()).toContain(
      `by Ada Ops (acme, local dev), approved by Avery Approver (acme, local dev); version ${outcome.order_version_before} → ${outcome.order_version_after}`,
    );
    expect(await frame.locator("#diff").locator("xpath=preceding-sibling::h2[1]").innerText()).toMatch(
      /^what changed$/i,
    );
    const cells = await frame.locator("#diff tbody td").allInnerTexts();
    expect(cells).toEqual(wordedCells(outcome.changes));
    expect(cells).toContain("Refunded");
    expect(cells).toContain("Cancelled");
    expect(await frame.locator("#expiry").count()).toBe(0);
    await expectReadable("get_proposal applied");
    await expectFits();
    await expectDrawn("get_proposal-applied");
  });

  it("shows a cancellation (cancel_order) in the approval app's words, pending and applied", async () => {
    const args = { order_id: "ORD-1009", reason: "customer asked to cancel by email" };
    const proposed = await call("cancel_order", args);
    const proposalId = String(proposed.structuredContent.proposal_id);
    const frame = page.frameLocator("#card-frame");
    await show("cancel_order", args, proposed);
    expect(await frame.locator("#summary").innerText()).toBe("Cancel the order before it ships");
    // The action's words come from its kind, which the server writes into the card's document.
    expect(await cardText()).toContain("Cancel order");
    await expectReadable("cancel_order pending");
    await expectFits();

    await approve(proposalId);
    expect((await call("apply_approved_change", { proposal_id: proposalId })).structuredContent.status).toBe("applied");
    const applied = await call("get_proposal", { proposal_id: proposalId });
    await show("get_proposal", { proposal_id: proposalId }, applied);
    expect(await frame.locator("#next").innerText()).toBe(
      "Applied: cancel order on order ORD-1009. Nothing more to do.",
    );
    expect(await frame.locator("#diff tbody td").allInnerTexts()).toContain("Refunded");
    await expectReadable("cancel_order applied");
    await expectDrawn("get_proposal-cancel-order-applied");
  });
});
