import { insertRow, type StatusGuardedTable, updateIfStatus } from "../store/status-guarded-rows";
import { type Proposal, ProposalSchema, type ProposalStatus } from "./proposal-schemas";

const PROPOSALS: StatusGuardedTable<Proposal> = {
  table: "proposals",
  idColumn: "proposal_id",
  recordColumn: "body",
  schema: ProposalSchema,
  id: (proposal) => proposal.proposal_id,
  lookups: (proposal) => ({
    order_id: proposal.order_id,
    change_key: ProposalStore.changeKey(proposal),
    pinned_version: proposal.pinned_version,
    created_at: proposal.created_at,
  }),
};

/**
 * Proposals in the AccountAgent's own SQLite (tables: account/storage-schema.ts).
 * One row per proposal, the whole proposal as validated JSON beside the
 * columns the lookups need.
 */
export class ProposalStore {
  constructor(private readonly sql: SqlStorage) {}

  static changeKey(proposal: Pick<Proposal, "change">): string {
    return JSON.stringify(proposal.change);
  }

  insert(proposal: Proposal): void {
    insertRow(this.sql, PROPOSALS, proposal);
  }

  /**
   * Writes the proposal's new state only if its stored status is still
   * `expected`, and says whether it did. Readers that bring a proposal up to
   * date (expiry, staleness) can then run outside the account's queue: a
   * transition decided on an outdated read is simply not written.
   */
  update(proposal: Proposal, expected: ProposalStatus): boolean {
    return updateIfStatus(this.sql, PROPOSALS, proposal, expected);
  }

  delete(proposalId: string): void {
    this.sql.exec("DELETE FROM proposals WHERE proposal_id = ?", proposalId);
  }

  get(proposalId: string): Proposal | undefined {
    const row = this.sql
      .exec<{ body: string }>("SELECT body FROM proposals WHERE proposal_id = ?", proposalId)
      .toArray()[0];
    return row ? ProposalSchema.parse(JSON.parse(row.body)) : undefined;
  }

  /** Open proposals for exactly this change at exactly this order version. */
  findOpen(orderId: string, changeKey: string, version: number): Proposal[] {
    const open: ProposalStatus[] = ["pending_approval", "approved"];
    return this.sql
      .exec<{ body: string }>(
        "SELECT body FROM proposals WHERE order_id = ? AND change_key = ? AND pinned_version = ? AND status IN (?, ?) ORDER BY created_at",
        orderId,
        changeKey,
        version,
        ...open,
      )
      .toArray()
      .map((row) => ProposalSchema.parse(JSON.parse(row.body)));
  }

  /** One order's proposals in one status, oldest first. */
  forOrder(orderId: string, status: ProposalStatus): Proposal[] {
    return this.sql
      .exec<{ body: string }>(
        "SELECT body FROM proposals WHERE order_id = ? AND status = ? ORDER BY created_at",
        orderId,
        status,
      )
      .toArray()
      .map((row) => ProposalSchema.parse(JSON.parse(row.body)));
  }

  /**
   * Open proposals whose time has not run out at `now`: an upper bound of what
   * the cap counts, since this table cannot see whether their orders moved on.
   */
  countOpen(now: Date): number {
    const row = this.sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM proposals WHERE status IN ('pending_approval', 'approved') AND json_extract(body, '$.expires_at') > ?",
        now.toISOString(),
      )
      .toArray()[0];
    return row?.n ?? 0;
  }

  byStatus(statuses: readonly ProposalStatus[]): Proposal[] {
    if (statuses.length === 0) return [];
    return this.sql
      .exec<{ body: string }>(
        `SELECT body FROM proposals WHERE status IN (${statuses.map(() => "?").join(", ")}) ORDER BY created_at DESC`,
        ...statuses,
      )
      .toArray()
      .map((row) => ProposalSchema.parse(JSON.parse(row.body)));
  }
}
