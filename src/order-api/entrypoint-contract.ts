/**
 * Set by the AccountAgent when it calls ORDER_API; only the internal
 * entrypoint reads it, the public /api mount never does.
 */
export const ACCOUNT_HEADER = "x-order-ops-account";

/** Who the AccountAgent is acting for (the operator), for audit events. */
export const ACTOR_HEADER = "x-order-ops-actor";
