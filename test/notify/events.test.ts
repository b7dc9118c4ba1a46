import { describe, expect, it } from "vitest";
import { type OutboxContext, outboxEventsFor, WebhookBodySchema } from "../../src/notify/events";
import type { NewAuditEvent } from "../../src/orders/audit-event";

// The event catalogue: which outbox rows each audit event becomes, and what
// their bodies say. Pure: nothing is written.

const BOTH: OutboxContext = {
  destinations: ["approvals", "downstream"],
  approvalUrl: (id) => `https://ops.example.com/approvals/${id}`,
};
const STATE = {
  status: "on_hold",
  version: 3,
  exception: null,
  payment: "authorized",
  inventory: [],
  fulfillment: null,
  shipping_address: null,
};

function auditEvent(eventType: string, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  return {
    event_id: `prop_abc:${eventType}`,
    account: "acme",
    order_id: "ORD-1012",
    event_type: eventType,
    actor_kind: "operator",
    actor: "Ada Ops",
    reason: "cancel_duplicate_order proposed (medium risk): cancel ORD-1012. It duplicates ORD-1011.",
    proposal_id: "prop_abc",
    state_before: STATE,
    state_after: null,
    created_at: "2026-12-01T06:15:06.000Z",
    ...overrides,
  };
}

const routes = (event: NewAuditEvent, context: OutboxContext = BOTH) =>
  outboxEventsFor(event, context).map((row) => `${row.destination} ${row.event_type}`);

describe("outboxEventsFor", () => {
  it.each([
    ["proposal_created", ["approvals proposal.created"]],
    ["proposal_approved", ["approvals proposal.approved"]],
    ["proposal_approval_recorded", ["approvals proposal.approval_recorded"]],
    ["proposal_rejected", ["approvals proposal.rejected"]],
    ["proposal_superseded", ["approvals proposal.superseded"]],
    ["proposal_expired", ["approvals proposal.expired"]],
    ["resolution_applied", ["approvals proposal.applied", "downstream proposal.applied", "downstream order.updated"]],
    [
      "address_change_applied",
      ["approvals proposal.applied", "downstream proposal.applied", "downstream order.updated"],
    ],
    ["cancellation_applied", ["approvals proposal.applied", "downstream proposal.applied", "downstream order.updated"]],
    ["order_received", []],
    ["order_seeded", []],
    ["exception_simulated", []],
  ])("%s becomes %j", (eventType, expected) => {
    expect(routes(auditEvent(eventType))).toEqual(expected);
  });

  it("a destination without a webhook gets no row", () => {
    expect(routes(auditEvent("resolution_applied"), { ...BOTH, destinations: ["downstream"] })).toEqual([
      "downstream proposal.applied",
      "downstream order.updated",
    ]);
    expect(routes(auditEvent("proposal_created"), { ...BOTH, destinations: ["downstream"] })).toEqual([]);
    expect(routes(auditEvent("resolution_applied"), { ...BOTH, destinations: [] })).toEqual([]);
  });

  it("ids are deterministic per change, destination and type, and distinct across accounts", () => {
    const once = outboxEventsFor(auditEvent("resolution_applied"), BOTH).map((row) => row.event_id);
    const again = outboxEventsFor(auditEvent("resolution_applied"), BOTH).map((row) => row.event_id);
    const globex = outboxEventsFor(auditEvent("resolution_applied", { account: "globex" }), BOTH).map(
      (row) => row.event_id,
    );
    expect(once).toEqual(again);
    expect(once).toEqual([
      "acme/prop_abc:resolution_applied/approvals/proposal.applied",
      "acme/prop_abc:resolution_applied/downstream/proposal.applied",
      "acme/prop_abc:resolution_applied/downstream/order.updated",
    ]);
    expect(new Set([...once, ...globex]).size).toBe(6);
  });

  it("the payload is the whole body: the structured event, the approval link, and a Slack text line", () => {
    const [row] = outboxEventsFor(auditEvent("proposal_created"), BOTH);
    const body = WebhookBodySchema.parse(JSON.parse(row?.payload ?? "null"));
    expect(body).toEqual({
      id: row?.event_id,
      type: "proposal.created",
      account: "acme",
      created_at: "2026-12-01T06:15:06.000Z",
      text: "[acme] Approval needed for order ORD-1012: cancel_duplicate_order proposed (medium risk): cancel ORD-1012. It duplicates ORD-1011. Review it: https://ops.example.com/approvals/prop_abc",
      data: {
        proposal_id: "prop_abc",
        order_id: "ORD-1012",
        actor_kind: "operator",
        actor: "Ada Ops",
        reason: "cancel_duplicate_order proposed (medium risk): cancel ORD-1012. It duplicates ORD-1011.",
        approval_url: "https://ops.example.com/approvals/prop_abc",
        order_version: null,
        state_before: STATE,
        state_after: null,
      },
    });
  });

  it("order.updated carries the order's new version and state", () => {
    const after = { ...STATE, status: "released", version: 4 };
    const updated = outboxEventsFor(auditEvent("resolution_applied", { state_after: after }), BOTH).find(
      (row) => row.event_type === "order.updated",
    );
    const body = WebhookBodySchema.parse(JSON.parse(updated?.payload ?? "null"));
    expect(body.data).toMatchObject({ order_version: 4, state_before: STATE, state_after: after });
    expect(body.text).toBe("[acme] Order ORD-1012 is now released at version 4.");
  });

  it("text from people is escaped the way Slack asks (&, <, >), so it cannot become a mention or a link", () => {
    const [row] = outboxEventsFor(
      auditEvent("proposal_rejected", {
        actor_kind: "approver",
        actor: "Avery",
        reason: "<!channel> & <https://evil.example|click>",
      }),
      BOTH,
    );
    const body = WebhookBodySchema.parse(JSON.parse(row?.payload ?? "null"));
    expect(body.text).toBe(
      '[acme] Avery rejected the proposal for order ORD-1012 ("&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;"). https://ops.example.com/approvals/prop_abc',
    );
    expect(body.data.reason).toBe("<!channel> & <https://evil.example|click>");
  });
});
