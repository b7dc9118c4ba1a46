import type { ExceptionType } from "../../orders/evidence";
import type { ChangeAction, Risk } from "../../orders/playbook";
import type { ConfirmResult, ProposalStatus } from "../../proposals/schemas";

/**
 * The words a person reads on a card instead of the enum values. Typed against
 * the zod enums, so adding a state or an action without a label fails to
 * compile. Anything not listed here (order statuses are free text) is shown
 * with its underscores turned into spaces.
 */
export const CARD_LABELS = {
  exception: {
    duplicate_order: "Duplicate order",
    payment_declined_inventory_held: "Payment declined, stock still held",
    fulfillment_hold_missing_sku: "On hold: a SKU is out of stock",
    fulfillment_incomplete_carrier_timeout: "Shipment stuck: carrier timed out",
    fraud_review: "Fraud review",
  } satisfies Record<ExceptionType, string>,
  action: {
    cancel_duplicate_order: "Cancel the duplicate order",
    release_inventory_hold_and_cancel_order: "Release the held stock and cancel the order",
    notify_customer_backorder: "Tell the customer it is backordered",
    retry_fulfillment: "Retry the shipment",
    escalate_to_human: "Hand over to a person",
    change_shipping_address: "Change the shipping address",
  } satisfies Record<ChangeAction, string>,
  status: {
    pending_approval: "Waiting for approval",
    approval_required: "Waiting for approval",
    approved: "Approved, not applied yet",
    rejected: "Rejected",
    applied: "Applied",
    expired: "Expired",
    stale: "Stale: the order changed",
    superseded: "Replaced by a newer proposal",
  } satisfies Record<ProposalStatus | ConfirmResult["status"], string>,
  risk: { low: "Low risk", medium: "Medium risk", high: "High risk" } satisfies Record<Risk, string>,
  field: {
    status: "Order status",
    exception: "Exception",
    payment: "Payment",
    inventory: "Inventory",
    fulfillment: "Fulfillment",
    shipping_address: "Shipping address",
  },
} as const;
