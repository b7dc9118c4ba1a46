import { describe, expect, it } from "vitest";
import { extendChain, formatChainHead, GENESIS_HASH } from "../../src/audit/chain";
import { checkExportedChain } from "../../src/audit/chain-check";
import { type ChainEventContent, chainHash } from "../../src/audit/chain-format";

// The chain's rules without D1: what the sealer links is what the checks accept.

function event(n: number): ChainEventContent {
  return {
    account: "acme",
    event_id: `E-${n}`,
    order_id: "ORD-1001",
    event_type: "order_received",
    actor_kind: "system",
    actor: "intake",
    reason: "order accepted",
    proposal_id: null,
    state_before: null,
    state_after: { status: "placed", n },
    created_at: `2026-12-01T00:00:0${n}.000Z`,
  };
}

async function exportOf(events: ChainEventContent[]): Promise<string> {
  const { links } = await extendChain(
    null,
    events.map((content, i) => ({ entry: i + 1, content })),
  );
  return links.map(([seq, , prev_hash, hash], i) => JSON.stringify({ ...events[i], seq, prev_hash, hash })).join("\n");
}

describe("the audit hash chain", () => {
  it("starts after the genesis hash and links each seal to the one before", async () => {
    const { links, head } = await extendChain(null, [
      { entry: 7, content: event(1) },
      { entry: 9, content: event(2) },
    ]);
    expect(links.map(([seq, entry]) => [seq, entry])).toEqual([
      [1, 7],
      [2, 9],
    ]);
    expect(links[0]?.[2]).toBe(GENESIS_HASH);
    expect(links[1]?.[2]).toBe(links[0]?.[3]);
    expect(links[0]?.[3]).toBe(await chainHash(GENESIS_HASH, 1, event(1)));
    expect(head).toEqual({ seq: 2, hash: links[1]?.[3] });
    expect(formatChainHead(head)).toBe(`2:${links[1]?.[3]}`);
  });

  it("goes on from a given head, and an empty chain's head is 0 and the genesis hash", async () => {
    const first = await extendChain(null, [{ entry: 1, content: event(1) }]);
    const next = await extendChain(first.head, [{ entry: 2, content: event(2) }]);
    expect(next.links[0]?.[0]).toBe(2);
    expect(next.links[0]?.[2]).toBe(first.head?.hash);
    expect(formatChainHead(null)).toBe(`0:${GENESIS_HASH}`);
    expect((await extendChain(null, [])).head).toBeNull();
  });

  it("accepts what it linked, and names an edited event", async () => {
    const ndjson = await exportOf([event(1), event(2), event(3)]);
    const intact = await checkExportedChain(ndjson);
    expect(intact.problems).toEqual([]);
    expect(intact.checked).toBe(3);

    const edited = ndjson.replace('"n":2', '"n":20');
    const checked = await checkExportedChain(edited);
    expect(checked.problems.map((p) => [p.kind, p.seq])).toEqual([["edited", 2]]);
  });
});
