import { applyD1Migrations } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChainHead } from "../../src/audit/chain";
import { verifyAuditChain } from "../../src/store/audit-chain";
import { sealAuditTrail } from "../../src/store/audit-seal";
import { event, freshAccount, record, seal } from "../helpers/audit-chain";
import { allMigrations, scratchDb as db } from "../helpers/migrations";

// verifyAuditChain finds every kind of tampering done behind the triggers'
// back, on a scratch database of its own: the tests drop the append-only
// triggers, which no other test may ever see.

beforeAll(async () => {
  await applyD1Migrations(db, allMigrations);
});

/**
 * Runs statements with the append-only triggers dropped, as someone with raw
 * access to the database could, then puts the triggers back exactly as they were.
 */
async function behindTheTriggersBack(...statements: D1PreparedStatement[]): Promise<void> {
  const { results: triggers } = await db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('audit_events', 'audit_seals')",
    )
    .all<{ name: string; sql: string }>();
  expect(triggers.length).toBeGreaterThanOrEqual(5);
  await db.batch(triggers.map((t) => db.prepare(`DROP TRIGGER ${t.name}`)));
  try {
    await db.batch(statements);
  } finally {
    await db.batch(triggers.map((t) => db.prepare(t.sql)));
  }
}

describe("verification detects tampering behind the triggers' back", () => {
  /** A sealed chain whose events are interleaved with another account's, so every gap between them holds a row. */
  async function chainOf(
    length: number,
  ): Promise<{ account: string; entries: number[]; fillers: number[]; head: ChainHead }> {
    const account = freshAccount();
    const filler = freshAccount();
    for (let i = 0; i < length; i++) await record(event(account), event(filler));
    const { head } = await seal(account);
    if (!head) throw new Error("nothing sealed");
    const entriesOf = async (who: string) =>
      (
        await db
          .prepare("SELECT entry FROM audit_events WHERE account = ? ORDER BY entry")
          .bind(who)
          .all<{ entry: number }>()
      ).results.map((r) => r.entry);
    expect((await verifyAuditChain(db, account, { anchors: [head] })).ok).toBe(true);
    return { account, entries: await entriesOf(account), fillers: await entriesOf(filler), head };
  }

  /**
   * An event written straight into a slot inside the sealed range (the slot's own row removed first): raw SQL on
   * purpose, as a tamperer would.
   */
  function smuggledEvent(account: string, entry: number): D1PreparedStatement[] {
    return [
      db.prepare("DELETE FROM audit_events WHERE entry = ?").bind(entry),
      db
        .prepare(
          `INSERT INTO audit_events (entry, event_id, account, order_id, event_type, actor_kind, actor, reason, created_at)
           VALUES (?, 'ORD-X:approved', ?, 'ORD-X', 'proposal_approved', 'approver', 'Mallory', 'looks fine', '2026-01-01T00:00:00.000Z')`,
        )
        .bind(entry, account),
    ];
  }

  async function problemsOf(account: string, anchor?: ChainHead) {
    const report = await verifyAuditChain(db, account, anchor ? { anchors: [anchor] } : {});
    return report.problems.map((p) => [p.kind, p.seq]);
  }

  it("an edited event", async () => {
    const { account, entries } = await chainOf(4);
    await behindTheTriggersBack(
      db.prepare("UPDATE audit_events SET actor = 'Mallory' WHERE entry = ?").bind(entries[1]),
    );
    expect(await problemsOf(account)).toEqual([["edited", 2]]);
  });

  it("an edited state, even when only its JSON changed", async () => {
    const { account, entries } = await chainOf(3);
    await behindTheTriggersBack(
      db
        .prepare(`UPDATE audit_events SET state_after = '{"status":"cancelled","version":1}' WHERE entry = ?`)
        .bind(entries[2]),
    );
    expect(await problemsOf(account)).toEqual([["edited", 3]]);
  });

  it("an event moved to another account", async () => {
    const { account, entries } = await chainOf(3);
    await behindTheTriggersBack(
      db.prepare("UPDATE audit_events SET account = 'elsewhere' WHERE entry = ?").bind(entries[0]),
    );
    expect(await problemsOf(account)).toEqual([["edited", 1]]);
  });

  it("an edited event whose hash was recomputed: the next link breaks", async () => {
    const { account, entries } = await chainOf(4);
    await behindTheTriggersBack(
      db.prepare("UPDATE audit_events SET reason = 'nothing to see' WHERE entry = ?").bind(entries[1]),
      db.prepare("UPDATE audit_seals SET hash = ? WHERE account = ? AND seq = 2").bind("a".repeat(64), account),
    );
    expect(await problemsOf(account)).toEqual([
      ["edited", 2],
      ["broken_link", 3],
    ]);
  });

  it("a removed event", async () => {
    const { account, entries } = await chainOf(4);
    await behindTheTriggersBack(db.prepare("DELETE FROM audit_events WHERE entry = ?").bind(entries[2]));
    expect(await problemsOf(account)).toEqual([["removed", 3]]);
  });

  it("a removed event together with its seal", async () => {
    const { account, entries } = await chainOf(4);
    await behindTheTriggersBack(
      db.prepare("DELETE FROM audit_events WHERE entry = ?").bind(entries[1]),
      db.prepare("DELETE FROM audit_seals WHERE account = ? AND seq = 2").bind(account),
    );
    expect(await problemsOf(account)).toEqual([["missing", 2]]);
  });

  it("an event inserted among sealed ones", async () => {
    const { account, fillers } = await chainOf(3);
    await behindTheTriggersBack(...smuggledEvent(account, fillers[0] ?? 0));
    expect(await problemsOf(account)).toEqual([["unsealed_inside", null]]);
  });

  it("an event inserted with a forged seal, the later seals renumbered", async () => {
    const { account, fillers } = await chainOf(3);
    const hashOf = async (seq: number) =>
      (
        await db
          .prepare("SELECT hash FROM audit_seals WHERE account = ? AND seq = ?")
          .bind(account, seq)
          .first<{ hash: string }>()
      )?.hash;
    await behindTheTriggersBack(
      ...smuggledEvent(account, fillers[0] ?? 0),
      db.prepare("UPDATE audit_seals SET seq = 4 WHERE account = ? AND seq = 3").bind(account),
      db.prepare("UPDATE audit_seals SET seq = 3 WHERE account = ? AND seq = 2").bind(account),
      db
        .prepare(
          "INSERT INTO audit_seals (account, seq, entry, prev_hash, hash, sealed_at) VALUES (?, 2, ?, ?, ?, 'now')",
        )
        .bind(account, fillers[0], await hashOf(1), "d".repeat(64)),
    );
    expect((await problemsOf(account)).slice(0, 3)).toEqual([
      ["edited", 2],
      ["broken_link", 3],
      ["edited", 3],
    ]);
  });

  it("a cut-off end is caught against the recorded head, and only with it", async () => {
    const { account, head } = await chainOf(3);
    await behindTheTriggersBack(db.prepare("DELETE FROM audit_seals WHERE account = ? AND seq = 3").bind(account));
    // The two links left are consistent on their own: the chain alone cannot tell.
    expect(await problemsOf(account)).toEqual([]);
    expect(await problemsOf(account, head)).toEqual([["head_mismatch", 3]]);
  });

  it("every anchor must hold: an export's older head and the object's newer one are both checked", async () => {
    const { account, head: older } = await chainOf(2);
    await record(event(account), event(account));
    const { head: newer } = await seal(account);
    if (!newer) throw new Error("nothing sealed");
    expect((await verifyAuditChain(db, account, { anchors: [older, newer] })).problems).toEqual([]);
    await behindTheTriggersBack(db.prepare("DELETE FROM audit_seals WHERE account = ? AND seq > 2").bind(account));
    const report = await verifyAuditChain(db, account, { anchors: [older, newer] });
    expect(report.problems.map((p) => [p.kind, p.seq])).toEqual([["head_mismatch", 4]]);
  });

  it("the sealer refuses to extend a chain whose recorded head was rewritten", async () => {
    const { account, head } = await chainOf(3);
    await behindTheTriggersBack(
      db.prepare("UPDATE audit_seals SET hash = ? WHERE account = ? AND seq = 3").bind("c".repeat(64), account),
    );
    await record(event(account));
    const refused = await sealAuditTrail(db, account, { anchor: head, now: new Date() });
    expect(refused).toMatchObject({ ok: false, error: { code: "conflict" } });
    expect(refused.ok ? "" : refused.error.message).toMatch(/rewritten/);
    expect((await verifyAuditChain(db, account)).unsealed).toBe(1);
  });

  it("the sealer accepts seals written past its anchor when they link up", async () => {
    const { account, head } = await chainOf(2);
    await record(event(account));
    await seal(account); // sealed, but as if the anchor update had been lost
    await record(event(account));
    expect(await sealAuditTrail(db, account, { anchor: head, now: new Date() })).toMatchObject({
      ok: true,
      value: { sealed: 1, head: { seq: 4 } },
    });
  });
});
