/**
 * The audit trail's hash chain: each account's sealed events form one chain,
 * which starts after GENESIS_HASH (64 zeros). Seal `seq` links to seal
 * seq-1 through its prev_hash; how one link is hashed is in chain-format.ts.
 * Imports only chain-format.ts (by its .ts name): `npm run audit:verify`
 * loads this folder in Node as it is.
 */
import { type ChainEventContent, chainHash } from "./chain-format.ts";

export const GENESIS_HASH = "0".repeat(64);

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** `26:eaaa…`, as X-Audit-Chain-Head carries it; an empty chain is `0:` and the genesis hash. */
export function formatChainHead(head: ChainHead | null): string {
  return head ? `${head.seq}:${head.hash}` : `0:${GENESIS_HASH}`;
}

/** One seal as the sealer writes it: [seq, entry, prev_hash, hash]. */
export type ChainLink = [seq: number, entry: number, prevHash: string, hash: string];

/** Links `events` (oldest first, each with its row's entry) onto the chain after `head`. */
export async function extendChain(
  head: ChainHead | null,
  events: readonly { readonly entry: number; readonly content: ChainEventContent }[],
): Promise<{ links: ChainLink[]; head: ChainHead | null }> {
  const links: ChainLink[] = [];
  let last = head;
  for (const { entry, content } of events) {
    const seq = (last?.seq ?? 0) + 1;
    const prevHash = last?.hash ?? GENESIS_HASH;
    const hash = await chainHash(prevHash, seq, content);
    links.push([seq, entry, prevHash, hash]);
    last = { seq, hash };
  }
  return { links, head: last };
}
