import { applyD1Migrations } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { NewAuditEvent } from "../../src/orders/audit-event";
import { insertAuditEvent } from "../../src/store/audit-events";
import { GENESIS_HASH, verifyAuditChain, type ChainHead } from "../../src/store/audit-chain";
import { sealAuditTrail } from "../../src/store/audit-seal";
import { allMigrations, scratchDb as db } from "../helpers/migrations";

// The chain is proven on a scratch database of its own: the tampering tests
// drop the append-only triggers, which no other test may ever see.

beforeAll(async () => {
  await applyD1Migrations(db, allMigrations);
});

let counter = 0;
function freshAccount(): string {
  return `chain-${crypto.randomUUID().slice(0, 8)}`;
}

function event(account: string, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  counter++;
  return {
    event_id: `ORD-${counter}:received`,
    account,
    order_id: `ORD-${counter}`,
    event_type: "order_received",
    actor_kind: "operator",
    actor: "Ada Ops",
    reason: `test event ${counter}`,
    proposal_id: null,
    state_before: null,
    state_after: { status: "accepted", version: 1 } as unknown as NewAuditEvent["state_after"],
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    ...overrides,
  };
}

async function record(...events: NewAuditEvent[]): Promise<void> {
  for (const e of events) await insertAuditEvent(db, e).run();
}

async function seal(account: string, anchor: ChainHead | null = null) {
  const sealed = await sealAuditTrail(db, account, { anchor, now: new Date() });
  if (!sealed.ok) throw new Error(sealed.error.message);
  return sealed.value;
}

describe("sealing", () => {
  it("seals an account's events in insertion order, and the chain verifies", async () => {
    const a = freshAccount();
    const b = freshAccount();
    await record(event(a), event(b), event(a), event(a), event(b));
    expect(await seal(a)).toMatchObject({ sealed: 3, more: false, head: { seq: 3 } });

    const report = await verifyAuditChain(db, a);
    expect(report).toMatchObject({ ok: true, sealed: 3, unsealed: 0, problems: [] });
    // The other account's events are in a chain of their own, not sealed yet.
    expect(await verifyAuditChain(db, b)).toMatchObject({ ok: true, sealed: 0, unsealed: 2 });
  });

  it("hashes exactly what the README documents, so anyone can recompute it", async () => {
    const a = freshAccount();
    const e = event(a, { proposal_id: "prop_1", actor_kind: "approver", state_before: null });
    await record(e);
    await seal(a);
    const row = await db.prepare("SELECT seq, prev_hash, hash FROM audit_seals WHERE account = ?").bind(a).first<{ seq: number; prev_hash: string; hash: string }>();
    // Spelled out by hand rather than through the module: sorted keys, no spaces.
    const canonical =
      `{"account":"${a}","actor":"Ada Ops","actor_kind":"approver","created_at":"${e.created_at}","event_id":"${e.event_id}",` +
      `"event_type":"order_received","format":1,"order_id":"${e.order_id}","proposal_id":"prop_1","reason":"${e.reason}",` +
      `"seq":1,"state_after":{"status":"accepted","version":1},"state_before":null}`;
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${GENESIS_HASH}\n${canonical}`));
    const expected = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(row).toEqual({ seq: 1, prev_hash: GENESIS_HASH, hash: expected });
  });

  it("on a database the seed has not reached yet, seals the seed's events first", async () => {
    // An export can be an account's first request: its trail starts with the seed, not after it.
    const { head } = await seal("globex");
    const seeded = await db.prepare("SELECT count(*) AS n FROM orders WHERE account = 'globex'").first<{ n: number }>();
    expect(seeded?.n).toBeGreaterThan(0);
    expect(head?.seq).toBeGreaterThanOrEqual(seeded?.n ?? Infinity);
    expect(await verifyAuditChain(db, "globex")).toMatchObject({ ok: true, unsealed: 0 });
  });

  it("a later pass seals only the new events and links them to the head", async () => {
    const a = freshAccount();
    await record(event(a), event(a));
    const first = await seal(a);
    await record(event(a));
    const second = await seal(a);
    expect(second).toMatchObject({ sealed: 1, head: { seq: 3 } });
    const link = await db.prepare("SELECT prev_hash FROM audit_seals WHERE account = ? AND seq = 3").bind(a).first<{ prev_hash: string }>();
    expect(link?.prev_hash).toBe(first.head?.hash);
    expect(await seal(a)).toMatchObject({ sealed: 0, head: second.head });
    expect((await verifyAuditChain(db, a)).ok).toBe(true);
  });

  it("stops at its limit and says there is more", async () => {
    const a = freshAccount();
    await record(event(a), event(a), event(a));
    const partial = await sealAuditTrail(db, a, { anchor: null, now: new Date(), maxPerPass: 2 });
    expect(partial).toMatchObject({ ok: true, value: { sealed: 2, more: true } });
    expect(await verifyAuditChain(db, a)).toMatchObject({ ok: true, sealed: 2, unsealed: 1 });
  });
});

describe("the triggers", () => {
  async function sealedAccount(): Promise<{ account: string; entries: number[] }> {
    const account = freshAccount();
    await record(event(account), event(account), event(account));
    await sealAuditTrail(db, account, { anchor: null, now: new Date(), maxPerPass: 2 });
    const { results } = await db.prepare("SELECT entry FROM audit_events WHERE account = ? ORDER BY entry").bind(account).all<{ entry: number }>();
    return { account, entries: results.map((r) => r.entry) };
  }

  function insertSeal(account: string, seq: number, entry: number, prevHash: string) {
    return db
      .prepare("INSERT INTO audit_seals (account, seq, entry, prev_hash, hash, sealed_at) VALUES (?, ?, ?, ?, ?, 'now')")
      .bind(account, seq, entry, prevHash, "f".repeat(64))
      .run();
  }

  async function headHash(account: string): Promise<string> {
    const row = await db.prepare("SELECT hash FROM audit_seals WHERE account = ? ORDER BY seq DESC LIMIT 1").bind(account).first<{ hash: string }>();
    return row?.hash ?? GENESIS_HASH;
  }

  it("refuse every UPDATE and DELETE of events and seals", async () => {
    const { account } = await sealedAccount();
    for (const table of ["audit_events", "audit_seals"]) {
      await expect(db.prepare(`UPDATE ${table} SET account = account WHERE account = ?`).bind(account).run()).rejects.toThrow(/append-only/);
      await expect(db.prepare(`DELETE FROM ${table} WHERE account = ?`).bind(account).run()).rejects.toThrow(/append-only/);
    }
  });

  it("refuse sealing an event twice", async () => {
    const { account, entries } = await sealedAccount();
    await expect(insertSeal(account, 3, entries[0] ?? 0, await headHash(account))).rejects.toThrow(/already sealed/);
  });

  it("refuse a seal that skips the oldest unsealed event, leaves a gap, forks, or crosses accounts", async () => {
    const { account, entries } = await sealedAccount();
    const other = await sealedAccount();
    await record(event(account));
    const newest = (await db.prepare("SELECT MAX(entry) AS e FROM audit_events WHERE account = ?").bind(account).first<{ e: number }>())?.e ?? 0;
    const head = await headHash(account);
    await expect(insertSeal(account, 3, newest, head)).rejects.toThrow(/insertion order/); // skips entries[2]
    await expect(insertSeal(account, 4, entries[2] ?? 0, head)).rejects.toThrow(/insertion order/); // gap in seq
    await expect(insertSeal(account, 3, entries[2] ?? 0, GENESIS_HASH)).rejects.toThrow(/insertion order/); // wrong link
    await expect(insertSeal(account, 3, other.entries[2] ?? 0, head)).rejects.toThrow(/insertion order/); // another account's event
    await expect(db.prepare("INSERT INTO audit_events (entry, event_id, account, order_id, event_type, actor_kind, actor, reason, created_at) VALUES (?, 'x', ?, 'o', 't', 'system', 'a', 'r', 'now')").bind(entries[0], account).run()).rejects.toThrow(/UNIQUE|constraint/);
    // The correct next link is accepted.
    await expect(insertSeal(account, 3, entries[2] ?? 0, head)).resolves.toBeDefined();
  });
});

/**
 * Runs statements with the append-only triggers dropped, as someone with raw
 * access to the database could, then puts the triggers back exactly as they were.
 */
async function behindTheTriggersBack(...statements: D1PreparedStatement[]): Promise<void> {
  const { results: triggers } = await db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('audit_events', 'audit_seals')")
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
  async function chainOf(length: number): Promise<{ account: string; entries: number[]; fillers: number[]; head: ChainHead }> {
    const account = freshAccount();
    const filler = freshAccount();
    for (let i = 0; i < length; i++) await record(event(account), event(filler));
    const { head } = await seal(account);
    if (!head) throw new Error("nothing sealed");
    const entriesOf = async (who: string) =>
      (await db.prepare("SELECT entry FROM audit_events WHERE account = ? ORDER BY entry").bind(who).all<{ entry: number }>()).results.map((r) => r.entry);
    expect((await verifyAuditChain(db, account, { anchors: [head] })).ok).toBe(true);
    return { account, entries: await entriesOf(account), fillers: await entriesOf(filler), head };
  }

  /** An event written straight into a slot inside the sealed range (the slot's own row removed first). */
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
    await behindTheTriggersBack(db.prepare("UPDATE audit_events SET actor = 'Mallory' WHERE entry = ?").bind(entries[1]));
    expect(await problemsOf(account)).toEqual([["edited", 2]]);
  });

  it("an edited state, even when only its JSON changed", async () => {
    const { account, entries } = await chainOf(3);
    await behindTheTriggersBack(db.prepare(`UPDATE audit_events SET state_after = '{"status":"cancelled","version":1}' WHERE entry = ?`).bind(entries[2]));
    expect(await problemsOf(account)).toEqual([["edited", 3]]);
  });

  it("an event moved to another account", async () => {
    const { account, entries } = await chainOf(3);
    await behindTheTriggersBack(db.prepare("UPDATE audit_events SET account = 'elsewhere' WHERE entry = ?").bind(entries[0]));
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
      (await db.prepare("SELECT hash FROM audit_seals WHERE account = ? AND seq = ?").bind(account, seq).first<{ hash: string }>())?.hash;
    await behindTheTriggersBack(
      ...smuggledEvent(account, fillers[0] ?? 0),
      db.prepare("UPDATE audit_seals SET seq = 4 WHERE account = ? AND seq = 3").bind(account),
      db.prepare("UPDATE audit_seals SET seq = 3 WHERE account = ? AND seq = 2").bind(account),
      db
        .prepare("INSERT INTO audit_seals (account, seq, entry, prev_hash, hash, sealed_at) VALUES (?, 2, ?, ?, ?, 'now')")
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
    await behindTheTriggersBack(db.prepare("UPDATE audit_seals SET hash = ? WHERE account = ? AND seq = 3").bind("c".repeat(64), account));
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
    expect(await sealAuditTrail(db, account, { anchor: head, now: new Date() })).toMatchObject({ ok: true, value: { sealed: 1, head: { seq: 4 } } });
  });
});
