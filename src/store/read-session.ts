import type { D1Queries } from "./d1-queries";
import { accountDatabase, readyDatabase } from "./databases";

/** Where a read session starts: a bookmark a caller carried back, or the primary. */
export type ReadStart = D1SessionBookmark | "first-primary";

export const AT_PRIMARY = "first-primary" satisfies ReadStart;

/** Bookmarks sort as strings, oldest first (D1's glossary promises it). */
const later = (a: D1SessionBookmark, b: D1SessionBookmark): D1SessionBookmark => (a > b ? a : b);

/**
 * One request's reads of one account's database, through a D1 session.
 *
 * Read-your-writes for a caller whose writes happen in two places: writes
 * this Worker makes go through this session, so its bookmark moves past them;
 * writes the account's object makes (a proposal, a confirm, the orders of a
 * batch or a run, an expiry noticed on a read) happen in the object and on
 * the primary, and their bookmark never reaches this Worker. So every call
 * to the object counts as a write, and reads after one start at the primary:
 * the primary has every committed write, and the rest of that session's
 * queries go to replicas that have caught up with what the primary answered.
 * A session that starts from a carried bookmark is served by any replica at
 * least as new as it, which is what makes a bookmark worth carrying.
 */
export class AccountReadSession {
  private session: D1DatabaseSession | undefined;
  private start: ReadStart;
  private objectCalledLast = false;

  /** `carried`: where the caller's last request said to start; without one, the primary. */
  constructor(
    private readonly database: D1Database,
    private readonly carried: ReadStart | undefined,
  ) {
    this.start = carried ?? AT_PRIMARY;
  }

  /**
   * The session statements go through, opened on first use; the seed is loaded on the primary first (seed-loader.ts).
   */
  async queries(): Promise<D1Queries> {
    await readyDatabase(this.database);
    if (!this.session) {
      this.session = this.database.withSession(this.start);
      this.objectCalledLast = false;
    }
    return this.session;
  }

  /**
   * Said before and after every call to the account's object: whatever it wrote is on the primary, so the next read
   * starts there.
   */
  objectCalled(): void {
    this.session = undefined;
    this.start = AT_PRIMARY;
    this.objectCalledLast = true;
  }

  /**
   * Where the caller's next request should start to see everything this
   * one saw or wrote: the newest bookmark of this request's reads, or the
   * primary when the object was called after the last of them. Undefined when
   * this request neither read nor called anything and the caller carried
   * nothing.
   */
  nextBookmark(): ReadStart | undefined {
    if (this.objectCalledLast) return AT_PRIMARY;
    const seen = this.session?.getBookmark() ?? undefined;
    if (seen === undefined) return this.carried;
    return this.carried === undefined || this.carried === AT_PRIMARY ? seen : later(this.carried, seen);
  }
}

/**
 * The handle an account's statements go through, the seed loaded: a request's read session, or the database itself (the
 * primary).
 */
export function statementsOf(source: D1Database | AccountReadSession): Promise<D1Queries> {
  return source instanceof AccountReadSession ? source.queries() : readyDatabase(source);
}

/**
 * One request's reads of an account's database through the D1 Sessions API:
 * with read replication on, served by a replica near the caller that has
 * caught up with `carried`, the start the caller's last request handed on,
 * or from the primary without one.
 */
export function accountReads(
  env: Pick<Env, "DB" | "DEMO_DATA">,
  account: string,
  carried?: ReadStart,
): AccountReadSession {
  return new AccountReadSession(accountDatabase(env, account), carried);
}
