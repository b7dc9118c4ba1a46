import { applyD1Migrations } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { scratchDb as db, migrationsUpTo as upTo } from "../helpers/migrations";

// Migration 0003 rebuilds audit_events and applied_proposals with account-scoped
// keys. It runs here on a scratch database that holds rows written under the
// old schema, so the test sees exactly what a deployed database goes through.
// Raw SQL on purpose: the rows must be written as the old code wrote them,
// whatever the store's insert becomes.
async function insertEvent(eventId: string, account: string, createdAt: string): Promise<void> {
  await db
    .prepare(
      `INSERT INTO audit_events (event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at)
       VALUES (?, ?, 'ORD-1', 'order_received', 'operator', 'Ada', 'test', NULL, NULL, NULL, ?)`,
    )
    .bind(eventId, account, createdAt)
    .run();
}

describe("migration 0003: account-scoped audit and application keys", () => {
  it("keeps every existing row in order, then lets two accounts share an event id", async () => {
    await applyD1Migrations(db, upTo("0002"));
    await insertEvent("ORD-1:received", "globex", "2026-01-01T00:00:02.000Z");
    await insertEvent("ORD-2:received", "acme", "2026-01-01T00:00:01.000Z");
    await db
      .prepare(
        "INSERT INTO applied_proposals (proposal_id, account, order_id, attempt_id, outcome, applied_at) VALUES ('prop_1', 'acme', 'ORD-2', 'a1', '{}', 'x')",
      )
      .run();

    await applyD1Migrations(db, upTo("0003"));

    const rows = await db
      .prepare("SELECT event_id, account FROM audit_events ORDER BY rowid")
      .all<{ event_id: string; account: string }>();
    expect(rows.results).toEqual([
      { event_id: "ORD-1:received", account: "globex" },
      { event_id: "ORD-2:received", account: "acme" },
    ]);
    const applied = await db.prepare("SELECT proposal_id, account FROM applied_proposals").all();
    expect(applied.results).toEqual([{ proposal_id: "prop_1", account: "acme" }]);

    await insertEvent("ORD-1:received", "acme", "2026-01-01T00:00:03.000Z");
    const shared = await db
      .prepare("SELECT account FROM audit_events WHERE event_id = 'ORD-1:received' ORDER BY account")
      .all<{ account: string }>();
    expect(shared.results.map((r) => r.account)).toEqual(["acme", "globex"]);
    // Within one account the id still identifies one event.
    await expect(insertEvent("ORD-1:received", "acme", "2026-01-01T00:00:04.000Z")).rejects.toThrow(/UNIQUE/);
  });

  it("keeps the append-only triggers", async () => {
    await applyD1Migrations(db, upTo("0003"));
    await insertEvent("ORD-9:received", "acme", "2026-01-01T00:00:05.000Z");
    await expect(
      db.prepare("UPDATE audit_events SET actor = 'x' WHERE event_id = 'ORD-9:received'").run(),
    ).rejects.toThrow(/append-only/);
    await expect(db.prepare("DELETE FROM audit_events WHERE event_id = 'ORD-9:received'").run()).rejects.toThrow(
      /append-only/,
    );
  });
});
