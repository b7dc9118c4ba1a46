import { describe, expect, it } from "vitest";
import { OrderIdParam } from "../../src/mcp/tools/params";
import { AddressInputSchema } from "../../src/orders/address";
import { CHANGE_KINDS } from "../../src/orders/change-kinds";
import { DecisionSchema } from "../../src/proposals/decision";
import { textTag } from "../../src/web/pages";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { jsonAnswer, postMcp, rpc } from "../helpers/mcp-raw";
import { countRows } from "../helpers/rows";
import { ACME_TOKEN } from "../helpers/tokens";

// Free text a person reads refuses control and bidirectional formatting characters. An adversarial run sent a cancel
// reason with U+202E (and a NUL), and the approval page drew the rest of the server's rationale reversed. What was
// stored before this is shown on the pages with each such character spelled out.

const RLO = "\u202e";
const UNSAFE = [
  ["U+202E", `customer asked ${RLO}lecnac`],
  ["U+0000", "customer asked\u0000 to cancel"],
  ["U+2066", "customer \u2066asked to cancel"],
  ["U+200F", "customer asked\u200f to cancel"],
  ["U+001B", "customer \u001b[31masked"],
] as const;

const cancelReason = CHANGE_KINDS.cancel_order.proposeTool.input.reason;

describe("free-text inputs", () => {
  it.each(UNSAFE)("a cancel reason with %s is refused, naming it", (code, reason) => {
    const parsed = cancelReason.safeParse(reason);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toContain(
      `must not contain control or bidirectional formatting characters (found ${code})`,
    );
  });

  it.each(UNSAFE)("an approver's reason, an address line and an order id with %s are refused", (_code, text) => {
    expect(DecisionSchema.safeParse({ decision: "approve", reason: text }).success).toBe(false);
    const address = {
      recipient: text,
      line1: "1 Main St",
      city: "Springfield",
      region: "IL",
      postal_code: "62701",
      country: "US",
    };
    expect(AddressInputSchema.safeParse(address).success).toBe(false);
    expect(OrderIdParam.safeParse(`ORD-1${text}`).success).toBe(false);
  });

  it("tabs, line breaks and every script's letters are text", () => {
    expect(cancelReason.safeParse("customer asked:\tcancel\nplease, שלום, مرحبا").success).toBe(true);
  });

  it("cancel_order over MCP refuses the reason and proposes nothing", async () => {
    const orderId = await insertFreshOrder();
    const answer = await jsonAnswer(
      await postMcp(
        rpc(1, "tools/call", { name: "cancel_order", arguments: { order_id: orderId, reason: UNSAFE[0][1] } }),
        { token: ACME_TOKEN, accept: "application/json" },
      ),
    );
    expect(JSON.stringify(answer)).toContain("U+202E");
    expect(await countRows("SELECT count(*) AS n FROM audit_events WHERE order_id = ?", orderId)).toBeLessThanOrEqual(
      1,
    );
  });
});

describe("pages showing text stored before", () => {
  it("spell each control or bidirectional character out, so nothing after it is drawn reversed", () => {
    const shown = String(textTag(`Cancel order ORD-1 (customer ${RLO}lecnac\u0000): its stock goes back`));
    expect(shown).not.toContain(RLO);
    expect(shown).not.toContain("\u0000");
    expect(shown).toContain("[U+202E]lecnac[U+0000]");
  });
});
