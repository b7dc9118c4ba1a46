/**
 * What a kind of change declares about itself. Each kind is one module in
 * this folder (resolution.ts, address-change.ts, …) that fills in every field
 * below; none has a default, so a kind that forgets one does not compile. The
 * registry (orders/change-kinds.ts) is built from those modules, and the
 * proposal machinery, the tools, the approval page, the cards, the webhooks
 * and the docs' checks read the registry: none of them names a kind.
 */
import type { z } from "zod/v4";
import type { Result } from "../../core/errors";
import type { Risk } from "../../core/risk";
import type { OrderRecord } from "../order-record";

/** Why the server proposes a change: its risk, the reason in one sentence, and the evidence an approver reads. */
export interface Plan {
  readonly risk: Risk;
  readonly rationale: string;
  readonly evidence: string[];
}

/** What a kind's proposing rule answers: the exact change to pin, and why. */
export interface Proposed<C> {
  readonly change: C;
  readonly plan: Plan;
}

/**
 * What an action does with the customer's money, given where the payment
 * stood before it. The approval page words each of these (web/approval/explain.ts,
 * a switch the compiler holds to this list); four eyes reads only whether an
 * action can move money at all.
 */
export type MoneyMove =
  /** The captured total goes back to the customer; `because` says why, after a colon. */
  | { readonly move: "refund"; readonly because: string }
  /** An authorization is voided: nothing was charged, the hold on the card is released. */
  | { readonly move: "void" }
  /**
   * The order is cancelled and there is nothing to give back (the payment is declined, refunded, voided or unknown).
   */
  | { readonly move: "nothing_to_refund" }
  /** The order is cancelled but the money already taken stays taken: the action returns nothing. */
  | { readonly move: "kept"; readonly held: "charged" | "authorized" }
  /** The order is cancelled, and it was never paid. */
  | { readonly move: "never_paid" };

/** How an action moves money, from the payment state before it (undefined when the order has no payment evidence). */
export type MoneyRule = (paymentBefore: string | undefined) => MoneyMove;

/** What a person reads about one action, and whether it moves money. */
export interface ActionFacts {
  /** Its name in words, on the approval page and the cards: "Cancel order". */
  readonly label: string;
  /** null: it moves no money. Otherwise the rule, which also puts it under FOUR_EYES_OVER_CENTS. */
  readonly money: MoneyRule | null;
}

/** The MCP tool that proposes this kind. Proposing is inert: the tool is read-only, and needs orders:propose. */
export interface ProposeTool<I extends z.ZodRawShape> {
  readonly name: string;
  readonly title: string;
  /** What a model needs to call it well, without other context; at least 80 characters. */
  readonly description: string;
  /** The tool's input beyond order_id, each field described. */
  readonly input: I;
}

/** The MCP tool that applies an approved proposal of this kind; kinds may share one (the description lists them). */
export interface ApplyTool {
  readonly name: string;
  readonly title: string;
}

/** The apply tool of seed 001, named for any approved change: kinds without a tool of their own use it. */
export const APPLY_APPROVED_CHANGE: ApplyTool = { name: "apply_approved_change", title: "Apply an approved change" };

/** A pinned change: an object whose `kind` names its kind and whose `action` says what it does. */
export type ChangeSchema = z.ZodType<{ readonly kind: string; readonly action: string }>;

/** Everything about one kind of change. */
export interface ChangeKind<C extends ChangeSchema, I extends z.ZodRawShape> {
  /** The registry's key for it, and the `kind` of its changes. */
  readonly name: z.output<C>["kind"];
  /** The change a proposal pins, exactly as stored and shown. */
  readonly change: C;
  /** What a sentence calls it: "an approved <noun>". */
  readonly noun: string;
  /** Every action the change can carry, each with its words and its money rule. */
  readonly actions: { readonly [A in z.output<C>["action"]]: ActionFacts };
  /** The change in one line: enough to tell two proposals for one order apart. */
  summary(change: z.output<C>): string;
  /** The audit event the one apply of such a proposal writes (and the webhooks announce). */
  readonly appliedEvent: string;
  readonly proposeTool: ProposeTool<I>;
  readonly applyTool: ApplyTool;
  /**
   * The proposing rule, pure: the change and its plan for this order, or a
   * `fail` whose message says why the change makes no sense for it (code
   * conflict), or why the input is not valid.
   */
  propose(order: OrderRecord, input: z.output<z.ZodObject<I>>): Result<Proposed<z.output<C>>>;
  /**
   * The order after the change, pure: the proposal shows this result before
   * approval and the apply writes the same one (store/operations.ts), if the
   * order's version has not moved in between. The version moves in SQL.
   */
  apply(order: OrderRecord, change: z.output<C>, at: string): OrderRecord;
}

/** Declares a kind; the identity, so that its schema and input keep their exact types in the registry. */
export function defineChangeKind<C extends ChangeSchema, I extends z.ZodRawShape>(
  kind: ChangeKind<C, I>,
): ChangeKind<C, I> {
  return kind;
}
