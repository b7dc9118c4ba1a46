import { beforeAll, describe, expect, it } from "vitest";
import { expectSignInForm, get, sessionFor, textOf } from "../../helpers/approval-pages";
import { exportAudit, ndjson, orderWithEvents, parseCsv } from "../../helpers/audit-export";
import { warmUp } from "../../helpers/orders";
import { ACME_APPROVER_TOKEN, GLOBEX_APPROVER_TOKEN } from "../../helpers/tokens";

// GET /approvals/audit: the audit export from the approval app's button, for
// the signed-in approver's account. The export itself is in export-routes.test.ts.

beforeAll(warmUp);

describe("from the approval app (GET /approvals/audit, the queue page's button)", () => {
  it("the queue page has the export form: format, from, to, order, and the button", async () => {
    const html = await (await get("/approvals", await sessionFor(ACME_APPROVER_TOKEN))).text();
    const form = /<form method="get" action="\/approvals\/audit">[\s\S]*?<\/form>/.exec(html)?.[0] ?? "";
    expect(form).toContain('<select id="export-format" name="format"><option value="ndjson" selected>');
    expect(form).toContain('<option value="csv">');
    expect(form).toContain('<input id="export-from" name="from" type="date">');
    expect(form).toContain('<input id="export-to" name="to" type="date">');
    expect(form).toContain('name="order_id"');
    expect(textOf(form)).toContain("Export audit trail");
    // A read needs no CSRF token, and one in a GET URL would land in the history.
    expect(form).not.toContain("csrf");
  });

  it("signed in: the same attachment as GET /api/audit, for the session's account, with the form's empty fields ignored", async () => {
    const times = ["2033-02-01T00:00:00.000Z", "2033-02-02T00:00:00.000Z", "2033-02-03T00:00:00.000Z"];
    const orderId = await orderWithEvents(times);
    const response = await get(
      `/approvals/audit?format=ndjson&from=2033-02-02&to=&order_id=${orderId}`,
      await sessionFor(ACME_APPROVER_TOKEN),
    );
    expect(response.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="audit-acme-${orderId}-\\d{8}T\\d{6}Z\\.ndjson"$`),
    );
    expect(response.headers.get("x-audit-chain-head")).toMatch(/^\d+:[0-9a-f]{64}$/);
    const rows = await ndjson(response);
    expect(rows.map((r) => [r.event_id, r.account])).toEqual([
      [`${orderId}:note-0001`, "acme"],
      [`${orderId}:note-0002`, "acme"],
    ]);
    const byToken = await ndjson(await exportAudit(`?from=2033-02-02&order_id=${orderId}`));
    expect(rows).toEqual(byToken);
  });

  it("signed in: CSV, as the format field says", async () => {
    const orderId = await orderWithEvents(["2033-03-01T00:00:00.000Z"]);
    const response = await get(
      `/approvals/audit?format=csv&from=&to=&order_id=${orderId}`,
      await sessionFor(ACME_APPROVER_TOKEN),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/\.csv"$/);
    const [header, row, ...rest] = parseCsv(await response.text());
    expect(rest).toEqual([]);
    expect(row?.[(header ?? []).indexOf("event_id")]).toBe(`${orderId}:note-0000`);
  });

  it("another account's approver gets only their own account's events", async () => {
    const orderId = await orderWithEvents(["2033-04-01T00:00:00.000Z"]);
    const rows = await ndjson(
      await get(`/approvals/audit?order_id=${orderId}`, await sessionFor(GLOBEX_APPROVER_TOKEN)),
    );
    expect(rows).toEqual([]);
    const all = await ndjson(await get("/approvals/audit", await sessionFor(GLOBEX_APPROVER_TOKEN)));
    expect(new Set(all.map((r) => r.account))).toEqual(new Set(["globex"]));
  });

  it("signed out: the sign-in page, which leads back to the queue; nothing is exported", async () => {
    const orderId = await orderWithEvents(["2033-05-01T00:00:00.000Z"]);
    const response = await get(`/approvals/audit?format=csv&order_id=${orderId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBeNull();
    const html = await response.text();
    expectSignInForm(html, "/approvals");
    expect(html).not.toContain(orderId);
  });

  it("a query the export refuses is a page that says why, not JSON", async () => {
    const response = await get("/approvals/audit?from=2026-02-30", await sessionFor(ACME_APPROVER_TOKEN));
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(textOf(await response.text())).toContain(
      "The audit trail was not exported the export query has 1 problem(s): from: is not a real date",
    );
  });
});
