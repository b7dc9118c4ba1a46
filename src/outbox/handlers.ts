import { loadConfig } from "../config/config";
import { consumeDeadLetters, consumeOutbox } from "./consumer";
import { drainOutbox } from "./drain";
import { OUTBOX_DEAD_LETTER_QUEUE_NAME } from "./messages";

/** The Worker's queue handler: both outbox queues come here, told apart by name. */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === OUTBOX_DEAD_LETTER_QUEUE_NAME) return consumeDeadLetters(batch, env);
  return consumeOutbox(batch, env);
}

/** The cron trigger: the drain, and the expiry sweep that gives proposal.expired its moment. */
export async function handleScheduled(controller: ScheduledController, env: Env): Promise<void> {
  const [{ enqueued }, expired] = await Promise.all([
    drainOutbox(env, new Date(controller.scheduledTime)),
    expireDueProposals(env),
  ]);
  if (enqueued > 0) console.log(`outbox drain: handed ${enqueued} owed event(s) to the queue again`);
  if (expired > 0) console.log(`expiry sweep: ${expired} proposal(s) expired`);
}

/**
 * Every account that configuration names (by an MCP or approver token) is
 * asked to expire its overdue proposals. A configuration that does not parse
 * sweeps nothing: the fetch handler already refuses to serve it.
 */
export async function expireDueProposals(env: Env): Promise<number> {
  const config = loadConfig(env);
  if (!config.ok) return 0;
  const holders = [...config.value.mcpTokens.values(), ...config.value.approverTokens.values()];
  const accounts = [...new Set(holders.map((holder) => holder.account))];
  const results = await Promise.all(
    accounts.map((account) => env.ACCOUNT_AGENT.getByName(account).expireDueProposals({ account })),
  );
  return results.reduce((sum, result) => sum + (result.ok ? result.value : 0), 0);
}
