import type { Address, Evidence, ExceptionState, ExceptionType, Priority } from "./evidence";
import type { OrderLine } from "./intake-schemas";

export interface OrderException {
  readonly type: ExceptionType;
  readonly state: ExceptionState;
  readonly priority: Priority;
  readonly team: string;
  readonly opened_at: string;
  readonly sla_minutes: number;
  readonly summary: string;
}

/** An order as the operations side sees it: whatever store it was read from. */
export interface OrderRecord {
  readonly order_id: string;
  readonly account: string;
  readonly source: "intake" | "operations";
  readonly customer_id: string;
  readonly channel: string;
  readonly currency: string;
  readonly total_cents: number;
  readonly status: string;
  readonly version: number;
  readonly lines: readonly OrderLine[];
  readonly shipping_address: Address | null;
  readonly evidence: Evidence | null;
  readonly exception: OrderException | null;
  readonly created_at: string;
  readonly updated_at: string;
}
