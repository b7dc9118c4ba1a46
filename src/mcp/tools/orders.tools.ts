import { z } from "zod/v4";
import { fail, ok, type Result } from "../../core/errors";
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, decodeAuditCursor } from "../../orders/audit-page";
import {
  AuditLogSchema,
  ExceptionListSchema,
  ORDER_NOT_FOUND_MESSAGE,
  OrderDetailsSchema,
  OrderStatusSchema,
  SimulatedFailureSchema,
} from "../../orders/tool-outputs";
import { ProposalViewSchema } from "../../proposals/proposal-schemas";
import type { AppCard } from "../apps";
import { exceptionQueueCard } from "../cards/exception-queue.card";
import { orderCard } from "../cards/order.card";
import { proposalCard } from "../cards/proposal.card";
import { applyTools, proposeTools } from "./change.tools";
import { EmptyInput, OrderIdParam, ProposalIdParam } from "./params";
import { type AccountTool, defineTool } from "./tool-registration";

function found<T>(value: T | null): Result<T> {
  return value === null ? fail("not_found", ORDER_NOT_FOUND_MESSAGE) : ok(value);
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const getOrderStatus = defineTool({
  name: "get_order_status",
  scope: "orders:read",
  title: "Get an order's status",
  description:
    "Returns only the status and version of one order of your account, never customer data. An unknown order and another account's order answer the same 'order not found'.",
  input: z.object({ order_id: OrderIdParam }),
  output: OrderStatusSchema,
  annotations: READ,
  handler: async ({ order_id }, context) => found(await context.orders.status(order_id)),
});

const listOrderExceptions = defineTool({
  name: "list_order_exceptions",
  scope: "orders:read",
  title: "List stuck orders",
  description:
    "Lists your account's orders with an active exception, most urgent first (P1 first, then oldest): customer, exception type, priority, team, age, SLA breach, value and a one-line summary. Start here, then get_order_details.",
  input: EmptyInput,
  output: ExceptionListSchema,
  annotations: READ,
  ui: exceptionQueueCard,
  handler: async (_args, context) => {
    const exceptions = await context.orders.exceptions();
    return ok({ count: exceptions.length, exceptions });
  },
});

const getOrderDetails = defineTool({
  name: "get_order_details",
  scope: "orders:read",
  title: "Explain an order's evidence",
  description:
    "Returns the evidence for one order of your account: customer, lines, address, payments, inventory, fulfillment, duplicate signals, the exception and the timeline. Use it to explain why an order is stuck before proposing anything.",
  input: z.object({ order_id: OrderIdParam }),
  output: OrderDetailsSchema,
  annotations: READ,
  ui: orderCard,
  handler: async ({ order_id }, context) => found(await context.orders.details(order_id)),
});

const getOrderAuditLog = defineTool({
  name: "get_order_audit_log",
  scope: "orders:read",
  title: "Read an order's audit log",
  description:
    "Returns the recorded events on one order of your account, oldest first, a page at a time: who, when, why, and the state before and after. When next_cursor is not null, pass it as cursor for the next page.",
  input: z.object({
    order_id: OrderIdParam,
    cursor: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("next_cursor of the previous page; omit it to start at the oldest event"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(AUDIT_PAGE_MAX)
      .default(AUDIT_PAGE_DEFAULT)
      .describe(`Events per page, 1-${AUDIT_PAGE_MAX} (default ${AUDIT_PAGE_DEFAULT})`),
  }),
  output: AuditLogSchema,
  annotations: READ,
  handler: async ({ order_id, cursor, limit }, context) => {
    const after = cursor === undefined ? null : decodeAuditCursor(cursor);
    if (after === undefined)
      return fail(
        "bad_request",
        "cursor is not a next_cursor from get_order_audit_log; omit it to start at the oldest event",
      );
    return found(await context.orders.auditLog(order_id, { after, limit }));
  },
});

const getProposal = defineTool({
  name: "get_proposal",
  scope: "orders:read",
  title: "Check a proposal",
  description:
    "Returns a proposal: its status (pending_approval, approved, applying, rejected, applied, failed, expired, stale or superseded), approval link, expiry and, once applied, its outcome. Use it to see whether a person has approved yet.",
  input: z.object({ proposal_id: ProposalIdParam }),
  output: ProposalViewSchema,
  annotations: READ,
  ui: proposalCard,
  handler: async ({ proposal_id }, context) => context.agent.getProposal(proposal_id),
});

const simulateNewFailure = defineTool({
  name: "simulate_new_failure",
  scope: "orders:propose",
  title: "Simulate a new stuck order (demo)",
  description:
    "Demo helper: creates one new synthetic order with an active exception in your account, so list_order_exceptions has something fresh to work on.",
  input: EmptyInput,
  output: SimulatedFailureSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  enabled: (context) => context.config.demoTools,
  handler: async (_args, context) => ok(await context.orders.simulateFailure(context.operator)),
});

/** The cards the tools above name in `ui`; hosts without MCP Apps never read them. */
export const orderCards: readonly AppCard[] = [exceptionQueueCard, orderCard, proposalCard];

export const orderTools: readonly AccountTool[] = [
  getOrderStatus,
  listOrderExceptions,
  getOrderDetails,
  getOrderAuditLog,
  ...proposeTools,
  getProposal,
  ...applyTools,
  simulateNewFailure,
];
