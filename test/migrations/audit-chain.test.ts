import { applyD1Migrations } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyAuditChain } from "../../src/store/audit-chain";
import { sealAuditTrail } from "../../src/store/audit-seal";
import { allMigrations, scratchDb as db, migrationsUpTo as upTo } from "../helpers/migrations";

// Migration 0005 rebuilds audit_events with an explicit insertion number and
// adds the seals. It runs on a scratch database holding rows written under
// 0003, as a deployed database would. Its accounts are not the seed's: sealing
// opens the order database, which loads the seed's acme and globex trails.
// Raw SQL on purpose: the rows must be written as the old code wrote them,
// whatever the store's insert becomes.
async function insertOldEvent(eventId: string, account: string, createdAt: string): Promise<void> {
  await db
    .prepare(
      `INSERT INTO audit_events (event_id, account, order_id, event_type, actor_kind, actor, reason, proposal_id, state_before, state_after, created_at)
       VALUES (?, ?, ?, 'order_received', 'operator', 'Ada', 'before the chain', NULL, NULL, '{"status":"accepted","version":1}', ?)`,
    )
    .bind(eventId, account, eventId.split(":")[0], createdAt)
    .run();
}

describe("migration 0005: the audit chain", () => {
  it("keeps every existing event in insertion order, unsealed, and then seals and verifies them", async () => {
    await applyD1Migrations(db, upTo("0003"));
    // Inserted out of created_at order on purpose: insertion order is what the chain follows.
    await insertOldEvent("ORD-2:received", "initech", "2026-01-01T00:00:02.000Z");
    await insertOldEvent("ORD-1:received", "umbrella", "2026-01-01T00:00:01.000Z");
    await insertOldEvent("ORD-1:received", "initech", "2026-01-01T00:00:00.000Z");
    const before = await db.prepare("SELECT rowid AS entry, * FROM audit_events ORDER BY rowid").all();

    await applyD1Migrations(db, upTo("0005"));

    const after = await db.prepare("SELECT * FROM audit_events ORDER BY entry").all();
    expect(after.results).toEqual(before.results);
    expect(await verifyAuditChain(db, "initech")).toMatchObject({ ok: true, sealed: 0, unsealed: 2 });

    // Sealing is today's code, which loads the seed into today's orders table: the later migrations first.
    await applyD1Migrations(db, allMigrations);
    const sealed = await sealAuditTrail(db, "initech", { anchor: null, now: new Date() });
    expect(sealed).toMatchObject({ ok: true, value: { sealed: 2 } });
    const order = await db
      .prepare(
        "SELECT s.seq, e.event_id FROM audit_seals s JOIN audit_events e USING (entry) WHERE s.account = 'initech' ORDER BY s.seq",
      )
      .all();
    expect(order.results).toEqual([
      { seq: 1, event_id: "ORD-2:received" },
      { seq: 2, event_id: "ORD-1:received" },
    ]);
    expect(await verifyAuditChain(db, "initech")).toMatchObject({ ok: true, sealed: 2, unsealed: 0 });
  });

  it("keeps an event id unique within its account and the trail append-only", async () => {
    await applyD1Migrations(db, upTo("0005"));
    await insertOldEvent("ORD-7:received", "initech", "2026-01-01T00:00:05.000Z");
    await expect(insertOldEvent("ORD-7:received", "initech", "2026-01-01T00:00:06.000Z")).rejects.toThrow(/UNIQUE/);
    await expect(
      db.prepare("UPDATE audit_events SET actor = 'x' WHERE event_id = 'ORD-7:received'").run(),
    ).rejects.toThrow(/append-only/);
    await expect(db.prepare("DELETE FROM audit_events WHERE event_id = 'ORD-7:received'").run()).rejects.toThrow(
      /append-only/,
    );
  });
});
