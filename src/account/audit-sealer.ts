import type { ChainHead } from "../audit/chain";
import { coalesced } from "../core/coalesce";
import { fail, ok, type Result } from "../core/errors";
import { sealAuditTrail } from "../store/audit-seal";

interface AuditSealerDeps {
  readonly db: D1Database;
  readonly account: string;
  /** The object's own SQLite: where the head of the chain is recorded, outside D1. */
  readonly storage: SqlStorage;
  readonly now: () => Date;
  /** Passes start at least this far apart, so a burst of orders is sealed in a few passes. */
  readonly minIntervalMs: number;
}

/** Passes per call: each seals up to a few thousand events; the rest waits for the next call. */
const MAX_ROUNDS = 10;

/**
 * The account's one sealer. Whoever wrote events (the intake API from any
 * isolate, the proposal service here, an export about to start) asks it to
 * seal; callers that arrive during a pass share the next one. After each pass
 * the head is recorded in the object's own storage, and the next pass checks
 * that D1 still holds that head before extending it, so a trail cut off or
 * rewritten in D1 alone stops being sealed and says why.
 */
export class AuditSealer {
  readonly seal: () => Promise<Result<ChainHead | null>>;
  private lastPassAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: AuditSealerDeps) {
    this.seal = coalesced(() => this.pass());
  }

  anchor(): ChainHead | null {
    return (
      this.deps.storage
        .exec<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_anchor WHERE id = 1")
        .toArray()[0] ?? null
    );
  }

  private record(head: ChainHead): void {
    this.deps.storage.exec(
      "INSERT INTO audit_anchor (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
      head.seq,
      head.hash,
    );
  }

  private async pass(): Promise<Result<ChainHead | null>> {
    const wait = this.lastPassAt + this.deps.minIntervalMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.lastPassAt = Date.now();
    try {
      let head = this.anchor();
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const outcome = await sealAuditTrail(this.deps.db, this.deps.account, {
          anchor: this.anchor(),
          now: this.deps.now(),
        });
        if (!outcome.ok) {
          console.error(`audit trail of ${this.deps.account} not sealed: ${outcome.error.message}`);
          return outcome;
        }
        head = outcome.value.head;
        if (head) this.record(head);
        if (!outcome.value.more) break;
      }
      return ok(head);
    } catch (error) {
      console.error(
        `audit seal pass for ${this.deps.account} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return fail("internal", "the audit trail could not be sealed right now; try again");
    }
  }
}
