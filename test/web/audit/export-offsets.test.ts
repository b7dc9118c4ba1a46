import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { get, sessionFor, textOf } from "../../helpers/approval-pages";
import { type ErrorBody, readJson } from "../../helpers/orders";
import { ACME_APPROVER_TOKEN } from "../../helpers/tokens";

// An export's from/to carry a UTC offset. One no clock has (+24:00, +99:00,
// -30:00) is refused with a 400 naming the field: on /api/audit in JSON, and
// on the approval app's button as a page.

function exportAudit(query: string): Promise<Response> {
  return exports.default.fetch(`http://localhost/api/audit${query}`, {
    headers: { authorization: `Bearer ${ACME_APPROVER_TOKEN}` },
  });
}

const OFFSET_HINT = "use an ISO date or time, e.g. 2026-12-01 or 2026-12-01T06:00:00Z";

describe("GET /api/audit", () => {
  it.each([
    ["from", "2026-12-03T00:00:00+99:00"],
    ["from", "2026-12-03T00:00:00+24:00"],
    ["to", "2026-12-03T00:00:00-30:00"],
    ["to", "2026-12-03T00:00:00+05:60"],
  ])("%s=%s: 400 naming the field", async (field, instant) => {
    const response = await exportAudit(`?${field}=${encodeURIComponent(instant)}`);
    expect(response.status).toBe(400);
    expect(await readJson<ErrorBody>(response)).toMatchObject({
      code: "bad_request",
      message: `the export query has 1 problem(s): ${field}: ${OFFSET_HINT}`,
    });
  });

  it("the widest offsets a clock can have are read as the instants they name", async () => {
    const response = await exportAudit(
      `?from=${encodeURIComponent("2026-12-03T00:00:00+23:59")}&to=${encodeURIComponent("2026-12-03T00:00:00-23:59")}`,
    );
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });
});

describe("GET /approvals/audit (the queue page's button)", () => {
  it("an offset no clock has: a 400 page that names the field, not JSON", async () => {
    const response = await get(
      `/approvals/audit?to=${encodeURIComponent("2026-12-03T00:00:00-30:00")}`,
      await sessionFor(ACME_APPROVER_TOKEN),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(textOf(await response.text())).toContain(
      `The audit trail was not exported the export query has 1 problem(s): to: ${OFFSET_HINT}`,
    );
  });
});
