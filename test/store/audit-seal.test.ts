import { applyD1Migrations } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { GENESIS_HASH } from "../../src/audit/chain";
import { verifyAuditChain } from "../../src/store/audit-chain";
import { sealAuditTrail } from "../../src/store/audit-seal";
import { accountDatabase } from "../../src/store/databases";
import { event, freshAccount, record, seal } from "../helpers/audit-chain";
import { allMigrations, scratchDb as db } from "../helpers/migrations";
import { countRowsIn } from "../helpers/rows";

// Sealing an account's audit trail into a hash chain, and the triggers that
// keep events and seals append-only, on a scratch database of its own.

beforeAll(async () => {
  await applyD1Migrations(db, allMigrations);
  // Opened through the door as a deployment with DEMO_DATA on would: the seed's events start each trail.
  accountDatabase({ DB: db, DEMO_DATA: "on" }, "globex");
});

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

  it("hashes exactly what docs/audit.md documents, so anyone can recompute it", async () => {
    const a = freshAccount();
    const e = event(a, { proposal_id: "prop_1", actor_kind: "approver", state_before: null });
    await record(e);
    await seal(a);
    const row = await db
      .prepare("SELECT seq, prev_hash, hash FROM audit_seals WHERE account = ?")
      .bind(a)
      .first<{ seq: number; prev_hash: string; hash: string }>();
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
    const seeded = await countRowsIn(db, "SELECT count(*) AS n FROM orders WHERE account = 'globex'");
    expect(seeded).toBeGreaterThan(0);
    expect(head?.seq).toBeGreaterThanOrEqual(seeded);
    expect(await verifyAuditChain(db, "globex")).toMatchObject({ ok: true, unsealed: 0 });
  });

  it("a later pass seals only the new events and links them to the head", async () => {
    const a = freshAccount();
    await record(event(a), event(a));
    const first = await seal(a);
    await record(event(a));
    const second = await seal(a);
    expect(second).toMatchObject({ sealed: 1, head: { seq: 3 } });
    const link = await db
      .prepare("SELECT prev_hash FROM audit_seals WHERE account = ? AND seq = 3")
      .bind(a)
      .first<{ prev_hash: string }>();
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
    const { results } = await db
      .prepare("SELECT entry FROM audit_events WHERE account = ? ORDER BY entry")
      .bind(account)
      .all<{ entry: number }>();
    return { account, entries: results.map((r) => r.entry) };
  }

  function insertSeal(account: string, seq: number, entry: number, prevHash: string) {
    return db
      .prepare(
        "INSERT INTO audit_seals (account, seq, entry, prev_hash, hash, sealed_at) VALUES (?, ?, ?, ?, ?, 'now')",
      )
      .bind(account, seq, entry, prevHash, "f".repeat(64))
      .run();
  }

  async function headHash(account: string): Promise<string> {
    const row = await db
      .prepare("SELECT hash FROM audit_seals WHERE account = ? ORDER BY seq DESC LIMIT 1")
      .bind(account)
      .first<{ hash: string }>();
    return row?.hash ?? GENESIS_HASH;
  }

  it("refuse every UPDATE and DELETE of events and seals", async () => {
    const { account } = await sealedAccount();
    for (const table of ["audit_events", "audit_seals"]) {
      await expect(
        db.prepare(`UPDATE ${table} SET account = account WHERE account = ?`).bind(account).run(),
      ).rejects.toThrow(/append-only/);
      await expect(db.prepare(`DELETE FROM ${table} WHERE account = ?`).bind(account).run()).rejects.toThrow(
        /append-only/,
      );
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
    const newest =
      (
        await db
          .prepare("SELECT MAX(entry) AS e FROM audit_events WHERE account = ?")
          .bind(account)
          .first<{ e: number }>()
      )?.e ?? 0;
    const head = await headHash(account);
    await expect(insertSeal(account, 3, newest, head)).rejects.toThrow(/insertion order/); // skips entries[2]
    await expect(insertSeal(account, 4, entries[2] ?? 0, head)).rejects.toThrow(/insertion order/); // gap in seq
    await expect(insertSeal(account, 3, entries[2] ?? 0, GENESIS_HASH)).rejects.toThrow(/insertion order/); // wrong link
    await expect(insertSeal(account, 3, other.entries[2] ?? 0, head)).rejects.toThrow(/insertion order/); // another account's event
    // Raw SQL on purpose: the store never chooses an entry number, so only a hand-made row can reuse one.
    await expect(
      db
        .prepare(
          "INSERT INTO audit_events (entry, event_id, account, order_id, event_type, actor_kind, actor, reason, created_at) VALUES (?, 'x', ?, 'o', 't', 'system', 'a', 'r', 'now')",
        )
        .bind(entries[0], account)
        .run(),
    ).rejects.toThrow(/UNIQUE|constraint/);
    // The correct next link is accepted.
    await expect(insertSeal(account, 3, entries[2] ?? 0, head)).resolves.toBeDefined();
  });
});
