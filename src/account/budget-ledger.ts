/**
 * The synthetic order budget's bookings (synth/order-budget.ts), in the
 * account object's SQLite: what was spent survives the object's restart, so a
 * kill -9 no longer empties a full minute.
 */
import type { BudgetEntry, BudgetLedger } from "../synth/order-budget";

export class SqlBudgetLedger implements BudgetLedger {
  constructor(private readonly sql: SqlStorage) {}

  entries(): BudgetEntry[] {
    return this.sql
      .exec<{ id: number; at: number; orders: number; holder: string | null }>(
        "SELECT id, at, orders, holder FROM synthetic_budget ORDER BY at, id",
      )
      .toArray()
      .map((row) => ({ id: row.id, at: row.at, orders: row.orders, holder: row.holder }));
  }

  book(at: number, orders: number): number {
    const row = this.sql
      .exec<{ id: number }>("INSERT INTO synthetic_budget (at, orders) VALUES (?, ?) RETURNING id", at, orders)
      .one();
    return row.id;
  }

  hold(id: number, holder: string): void {
    this.sql.exec("UPDATE synthetic_budget SET holder = ? WHERE id = ?", holder, id);
  }

  remove(ids: readonly number[]): void {
    for (const id of ids) this.sql.exec("DELETE FROM synthetic_budget WHERE id = ?", id);
  }
}
