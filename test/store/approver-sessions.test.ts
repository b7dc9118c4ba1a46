import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ApproverSessionRow } from "../../src/auth/approver-session";
import { d1ApproverSessions } from "../../src/store/approver-sessions";
import { countSessionRows } from "../helpers/rows";

// The D1 side of approver sessions: a row counts only until it expires, a
// delete is final, and each insert sweeps rows that have expired.

const store = d1ApproverSessions(env.DB);

function row(hash: string, createdAt: Date, minutes = 30): ApproverSessionRow {
  return {
    session_hash: hash,
    account: "acme",
    approver: "Store Test Approver",
    csrf_token: `csrf-${hash}`,
    created_at: createdAt.toISOString(),
    expires_at: new Date(createdAt.getTime() + minutes * 60_000).toISOString(),
  };
}

describe("approver session rows", () => {
  it("are found until they expire, and not a moment after", async () => {
    // Opened now: an insert sweeps rows expired by its own time, so a future one would sweep other tests' sessions.
    const opened = new Date();
    const stored = row(`h-${crypto.randomUUID()}`, opened);
    await store.insert(stored);
    expect(await store.find(stored.session_hash, new Date(opened.getTime() + 30 * 60_000 - 1).toISOString())).toEqual(
      stored,
    );
    expect(await store.find(stored.session_hash, stored.expires_at)).toBeNull();
  });

  it("are gone after delete", async () => {
    const stored = row(`h-${crypto.randomUUID()}`, new Date());
    await store.insert(stored);
    await store.delete(stored.session_hash);
    expect(await store.find(stored.session_hash, new Date().toISOString())).toBeNull();
    expect(await countSessionRows(stored.session_hash)).toBe(0);
  });

  it("an insert sweeps rows expired by its own time, and keeps live ones", async () => {
    const now = new Date();
    const expired = row(`h-${crypto.randomUUID()}`, new Date(now.getTime() - 60 * 60_000));
    const live = row(`h-${crypto.randomUUID()}`, new Date(now.getTime() - 10 * 60_000));
    await store.insert(live);
    await store.insert(expired);
    expect(await countSessionRows(expired.session_hash)).toBe(1);
    await store.insert(row(`h-${crypto.randomUUID()}`, now));
    expect(await countSessionRows(expired.session_hash)).toBe(0);
    expect(await countSessionRows(live.session_hash)).toBe(1);
  });
});
