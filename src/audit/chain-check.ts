/**
 * The checks that prove an account's hash chain intact, link by link, from
 * D1 (store/audit-chain.ts reads it) or from an NDJSON export. Anyone holding
 * an unfiltered export can recompute them with any SHA-256 tool.
 *
 * `npm run audit:verify` loads this file in Node as it is, so the script and
 * the Worker check with the same code. It imports only this folder's
 * chain.ts and chain-format.ts, by their names with the .ts extension, and
 * those import only the import-free event-fields.ts and core/encoding.ts:
 * keep them that way.
 */
import { type ChainHead, GENESIS_HASH } from "./chain.ts";
import { type ChainEventContent, chainHash } from "./chain-format.ts";

type ChainProblemKind =
  | "edited"
  | "removed"
  | "missing"
  | "broken_link"
  | "duplicate"
  | "unsealed_inside"
  | "head_mismatch";

export interface ChainProblem {
  readonly kind: ChainProblemKind;
  readonly seq: number | null;
  readonly message: string;
}

/** One link as it is read back: its seal, and the event it seals (null when the event row is gone). */
export interface SealedEvent {
  readonly seq: number;
  readonly prev_hash: string;
  readonly hash: string;
  readonly event: ChainEventContent | null;
}

const MAX_PROBLEMS = 100;

/**
 * Walks one account's chain in seq order and names every way it fails to
 * link up. Fed page by page, so a long trail never has to fit in memory.
 */
export class ChainChecker {
  readonly problems: ChainProblem[] = [];
  private previous: ChainHead | null;
  private count = 0;

  /** `from`: the link the walk starts after (null: the chain's start). */
  constructor(from: ChainHead | null = null) {
    this.previous = from;
  }

  get head(): ChainHead | null {
    return this.previous;
  }

  get checked(): number {
    return this.count;
  }

  report(kind: ChainProblemKind, seq: number | null, message: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ kind, seq, message });
  }

  async push(link: SealedEvent): Promise<void> {
    this.count++;
    const previous = this.previous;
    const expectedSeq = (previous?.seq ?? 0) + 1;
    const expectedPrev = previous?.hash ?? GENESIS_HASH;
    if (previous && link.seq === previous.seq) {
      this.report("duplicate", link.seq, `seq ${link.seq} appears twice: an event was inserted into the sealed trail`);
    } else if (link.seq > expectedSeq) {
      const range = link.seq - 1 === expectedSeq ? `seq ${expectedSeq} is` : `seq ${expectedSeq}-${link.seq - 1} are`;
      this.report("missing", expectedSeq, `${range} missing: sealed events were removed`);
    } else if (link.prev_hash !== expectedPrev) {
      this.report(
        "broken_link",
        link.seq,
        `seq ${link.seq} does not link to seq ${link.seq - 1}: an event before it was replaced, or one was inserted`,
      );
    }
    if (!link.event) {
      this.report("removed", link.seq, `the event sealed as seq ${link.seq} is gone: it was removed`);
    } else if ((await chainHash(link.prev_hash, link.seq, link.event)) !== link.hash) {
      this.report(
        "edited",
        link.seq,
        `seq ${link.seq} (${link.event.event_id}) no longer matches its hash: it was edited`,
      );
    }
    this.previous = { seq: link.seq, hash: link.hash };
  }

  /** The head an outside record (the account object, an earlier export) says the chain reached. */
  expectHead(anchor: ChainHead, hashAtAnchorSeq: string | null): void {
    // Seq 0 is the empty chain (an export taken before anything was sealed): every chain starts there.
    if (anchor.seq === 0) hashAtAnchorSeq = GENESIS_HASH;
    if (hashAtAnchorSeq === null) {
      this.report(
        "head_mismatch",
        anchor.seq,
        `the chain no longer reaches seq ${anchor.seq}, which was sealed: its end was cut off`,
      );
    } else if (hashAtAnchorSeq !== anchor.hash) {
      this.report(
        "head_mismatch",
        anchor.seq,
        `seq ${anchor.seq} no longer has the hash recorded when it was sealed: the trail was rewritten`,
      );
    }
  }
}

/**
 * Checks an unfiltered NDJSON export of GET /api/audit: one event per line,
 * with its seal. This is how whoever receives an export verifies it. With an
 * anchor (the X-Audit-Chain-Head of this or an earlier export), the file must
 * still hold that link: a newer export goes past an older head, so the hash is
 * taken where the walk passes the anchor's seq, not from the file's last line.
 */
export async function checkExportedChain(
  ndjson: string,
  options: { anchors?: readonly ChainHead[] } = {},
): Promise<ChainChecker> {
  const checker = new ChainChecker();
  const anchors = options.anchors ?? [];
  const seen = new Map<number, string>();
  for (const line of ndjson.split("\n")) {
    if (line.trim() === "") continue;
    const { seq, prev_hash, hash, ...event } = JSON.parse(line) as SealedEvent & ChainEventContent;
    await checker.push({ seq, prev_hash, hash, event });
    if (!seen.has(seq) && anchors.some((anchor) => anchor.seq === seq)) seen.set(seq, hash);
  }
  for (const anchor of anchors) checker.expectHead(anchor, seen.get(anchor.seq) ?? null);
  return checker;
}
