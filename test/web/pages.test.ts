import { describe, expect, it } from "vitest";
import { pageHeader } from "../../src/web/pages";
import { textOf } from "../helpers/approval-pages";

// The header every signed-in page shares: the approval pages and the run
// pages (src/web/runs/run-page.ts) render the same one.

describe("pageHeader", () => {
  const header = String(pageHeader({ approver: "Avery Approver", csrfToken: "token" }));

  it("names the product, not one of its pages, so it is true on a run page too", () => {
    expect(textOf(header)).not.toMatch(/approvals/i);
    expect(textOf(header)).toContain("Signed in as Avery Approver");
  });

  it("links home to the pending proposals and signs out with the session's CSRF token", () => {
    expect(header).toContain('<a class="brand" href="/approvals">Order Ops Edge</a>');
    expect(header).toContain('<input type="hidden" name="csrf" value="token">');
  });
});
