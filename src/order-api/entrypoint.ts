import { WorkerEntrypoint } from "cloudflare:workers";
import { Hono } from "hono";
import { AccountIdSchema } from "../config";
import { fail, ok } from "../errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { installErrorHandlers } from "../http/error-handlers";
import { ACCOUNT_HEADER, ACTOR_HEADER } from "./entrypoint-contract";
import { readAuditLog, recordAuditEvent, type NewAuditEvent } from "../store/audit-events";
import { applyProposalChange, appliedOutcome, listActiveExceptions, readOrderDetails, type ApplyCommand, type ApplyResult } from "../store/operations";
import type { ApplyOutcome, AuditLog, ExceptionSummary, OrderDetails, OrderStatus, SimulatedFailure } from "../orders/views";
import { readOrderRecord, type OrderRecord } from "../store/order-rows";
import { orderApiRoutes } from "./routes";
import { simulateFailure } from "../store/simulated-orders";
import { ensureSeedLoaded } from "../store/seed-loader";

const internalApp = new Hono<AppEnv>();
internalApp.use("*", requireConfig);
internalApp.route(
  "/api",
  orderApiRoutes(async (c) => {
    const account = AccountIdSchema.safeParse(c.req.header(ACCOUNT_HEADER));
    if (!account.success) return fail("bad_request", `internal callers must send a valid ${ACCOUNT_HEADER} header`);
    let actor = "ORDER_API caller";
    try {
      actor = decodeURIComponent(c.req.header(ACTOR_HEADER) ?? "").trim().slice(0, 120) || actor;
    } catch {
      // A malformed actor header only loses the name, never the request.
    }
    return ok({ account: account.data, actor });
  }),
);
installErrorHandlers(internalApp);

/**
 * The ORDER_API target. Only a service binding can reach a named entrypoint,
 * so the account it is told (header or RPC argument) cannot come from the
 * public internet. `fetch` speaks the intake contract any target must offer;
 * the RPC methods are this order store's operations surface.
 */
export class OrderApi extends WorkerEntrypoint<Env> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(internalApp.fetch(request, this.env, this.ctx));
  }

  private async db(account: string): Promise<D1Database> {
    AccountIdSchema.parse(account);
    await ensureSeedLoaded(this.env.DB);
    return this.env.DB;
  }

  async orderStatus(account: string, orderId: string): Promise<OrderStatus | null> {
    const order = await readOrderRecord(await this.db(account), account, orderId);
    return order ? { order_id: order.order_id, status: order.status, version: order.version } : null;
  }

  async orderRecord(account: string, orderId: string): Promise<OrderRecord | null> {
    return (await readOrderRecord(await this.db(account), account, orderId)) ?? null;
  }

  async orderDetails(account: string, orderId: string): Promise<OrderDetails | null> {
    return (await readOrderDetails(await this.db(account), account, orderId, new Date())) ?? null;
  }

  async listExceptions(account: string): Promise<ExceptionSummary[]> {
    return listActiveExceptions(await this.db(account), account, new Date());
  }

  async auditLog(account: string, orderId: string): Promise<AuditLog | null> {
    return (await readAuditLog(await this.db(account), account, orderId)) ?? null;
  }

  async recordEvent(event: NewAuditEvent): Promise<void> {
    await recordAuditEvent(await this.db(event.account), event);
  }

  async applyProposal(command: ApplyCommand): Promise<ApplyResult> {
    return applyProposalChange(await this.db(command.account), command, new Date());
  }

  async appliedOutcome(account: string, proposalId: string): Promise<ApplyOutcome | null> {
    return appliedOutcome(await this.db(account), account, proposalId);
  }

  async simulateFailure(account: string, actor: string): Promise<SimulatedFailure> {
    return simulateFailure(await this.db(account), account, actor, new Date());
  }
}
