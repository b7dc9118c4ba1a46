import type { NewAuditEvent } from "../orders/audit-event";
import type { WebhookEventType } from "./event-types";

/**
 * The one readable line of a webhook body. Slack reads `&`, `<` and `>` as
 * markup, so text from people (reasons) is escaped the way Slack asks.
 */
function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A reason as a clause: without the trailing full stop the sentence adds itself. */
function clause(reason: string): string {
  return reason.trim().replace(/\.+$/, "");
}

export function webhookText(type: WebhookEventType, event: NewAuditEvent, approvalUrl: string | null): string {
  const order = `order ${event.order_id}`;
  const link = approvalUrl === null ? "" : ` ${approvalUrl}`;
  const why = clause(event.reason);
  const line = (() => {
    switch (type) {
      case "proposal.created":
        return `Approval needed for ${order}: ${why}. Review it:${link}`;
      case "proposal.approved":
        return `${event.actor} approved the proposal for ${order} ("${why}"); it can now be applied.${link}`;
      case "proposal.approval_recorded":
        return `${event.actor} approved the proposal for ${order} ("${why}"); it needs one more approver, someone else.${link}`;
      case "proposal.rejected":
        return `${event.actor} rejected the proposal for ${order} ("${why}").${link}`;
      case "proposal.superseded":
        return `The proposal for ${order} was ${why}; it needs no decision any more.${link}`;
      case "proposal.expired":
        return `The proposal for ${order} expired without being applied: ${why}.${link}`;
      case "proposal.applied":
        return `Order ${event.order_id} was changed: ${why}.${link}`;
      case "order.updated": {
        const after = event.state_after;
        return after
          ? `Order ${event.order_id} is now ${after.status} at version ${after.version}.`
          : `Order ${event.order_id} changed.`;
      }
    }
  })();
  return `[${event.account}] ${slackEscape(line)}`;
}
