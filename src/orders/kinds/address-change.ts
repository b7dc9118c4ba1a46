/**
 * An address change: ship the order somewhere else, while nothing of it has
 * left. Proposed by prepare_address_change with the new address, which the
 * proposal pins normalized; applied by apply_approved_change (seed 001).
 */
import { z } from "zod/v4";
import { fail, ok } from "../../core/errors";
import { AddressInputSchema, addressLock, normalizeAddress, sameAddress } from "../address";
import { AddressSchema } from "../evidence";
import { formatAddress } from "../order-state";
import { withTimeline } from "./effects";
import { APPLY_APPROVED_CHANGE, defineChangeKind } from "./kind";

const AddressChangeSchema = z.object({
  kind: z.literal("address_change"),
  action: z.literal("change_shipping_address"),
  address: AddressSchema,
});

export const addressChange = defineChangeKind({
  name: "address_change",
  change: AddressChangeSchema,
  noun: "address change",
  actions: { change_shipping_address: { label: "Change shipping address", money: null } },
  summary: (change: z.infer<typeof AddressChangeSchema>) => `Ship to ${formatAddress(change.address)}`,
  appliedEvent: "address_change_applied",
  proposeTool: {
    name: "prepare_address_change",
    title: "Prepare a shipping address change",
    description:
      "Validates and normalizes a new shipping address for an order of your account and creates an inert proposal pinning it and the order's current version. Orders shipped (even partly), delivered or cancelled are refused.",
    input: { address: AddressInputSchema.describe("The new shipping address") },
  },
  applyTool: APPLY_APPROVED_CHANGE,
  propose(order, { address: input }) {
    const locked = addressLock(order);
    if (locked) return fail("conflict", locked);
    const address = normalizeAddress(input);
    if (!address.ok) return address;
    if (sameAddress(order.shipping_address, address.value)) {
      return fail("conflict", `order ${order.order_id} already ships to that address; there is nothing to change`);
    }
    const fraud = order.exception?.state === "active" && order.exception.type === "fraud_review";
    return ok({
      change: { kind: "address_change", action: "change_shipping_address", address: address.value },
      plan: {
        risk: fraud ? "high" : "medium",
        rationale: `Ship the order to ${address.value.recipient}, ${address.value.city} instead of the address on file.`,
        evidence: [
          `order ${order.order_id} is ${order.status} at version ${order.version}`,
          `the current address is pinned as the "before" value`,
        ],
      },
    });
  },
  apply(order, change, at) {
    return {
      ...order,
      shipping_address: change.address,
      evidence: order.evidence
        ? withTimeline(
            order.evidence,
            at,
            "address_changed",
            `shipping address changed to ${formatAddress(change.address)}`,
          )
        : order.evidence,
    };
  },
});
