import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ChainEventContent, chainHash } from "../../src/audit/chain-format";
import { AUDIT_EVENT_FIELDS } from "../../src/audit/event-fields";
import { AuditEventSchema } from "../../src/orders/tool-outputs";
import { csvHeader } from "../../src/web/audit/export-format";

// The audit event's fields are one tuple. These tie it to what depends on it
// and cannot follow a change by itself: the hashes already sealed, the
// table's columns, and the columns of an export someone may already parse.

const EVENT: ChainEventContent = {
  account: "acme",
  event_id: "prop_1:approved",
  order_id: "ORD-1001",
  event_type: "proposal_approved",
  actor_kind: "approver",
  actor: "Avery «A» Ünal",
  reason: "looks right\nline two",
  proposal_id: "prop_1",
  state_before: { status: "on_hold", version: 3, exception: { state: "active" }, payment: null },
  state_after: null,
  created_at: "2026-12-01T10:00:00.000Z",
};

describe("the audit event's fields", () => {
  it("are what chain format 1 hashes: a link sealed before keeps its hash (a new field needs a new format)", async () => {
    expect(AUDIT_EVENT_FIELDS).toEqual([
      "created_at",
      "account",
      "order_id",
      "event_id",
      "event_type",
      "actor_kind",
      "actor",
      "reason",
      "proposal_id",
      "state_before",
      "state_after",
    ]);
    // Hashes computed when the chain format was first written; they must never change.
    expect(await chainHash("ab".repeat(32), 7, EVENT)).toBe(
      "6e3f2b4dc1c616598f6974b90236501e619c7af2d941365050d95fb8bf6a09a0",
    );
    const withoutStates = { ...EVENT, proposal_id: null, state_before: undefined };
    expect(await chainHash("0".repeat(64), 1, withoutStates)).toBe(
      "e9825c42d236511a9f639a1f286ac385e7fd8c7d3f96b8f2bb290f9cab9d4e3c",
    );
  });

  it("change the hash whichever of them changes", async () => {
    const base = await chainHash("0".repeat(64), 1, EVENT);
    for (const field of AUDIT_EVENT_FIELDS) {
      expect(await chainHash("0".repeat(64), 1, { ...EVENT, [field]: "changed" }), field).not.toBe(base);
    }
  });

  it("are the audit_events table's columns, beside its insertion number", async () => {
    const { results } = await env.DB.prepare("SELECT name FROM pragma_table_info('audit_events')").all<{
      name: string;
    }>();
    expect(results.map((c) => c.name).sort()).toEqual(["entry", ...AUDIT_EVENT_FIELDS].sort());
  });

  it("are an export's columns, between the link's seq and its seal", () => {
    expect(csvHeader()).toBe(`seq,${AUDIT_EVENT_FIELDS.join(",")},prev_hash,hash\r\n`);
  });

  it("are what the audit log shows, less the account and the order (the log is one order's), with created_at as `at`", () => {
    const shown = AUDIT_EVENT_FIELDS.filter((field) => field !== "account" && field !== "order_id").map((field) =>
      field === "created_at" ? "at" : field,
    );
    expect(Object.keys(AuditEventSchema.shape).sort()).toEqual(shown.sort());
  });
});
