/**
 * The kinds of change a proposal can make, built from their modules
 * (orders/kinds/*.ts, each declaring everything about one kind). A new kind
 * is its module and one entry in KINDS; everything below, and everything
 * that reads it (the proposal machinery, the apply, four eyes, the tools and
 * their texts, the approval page, the cards, the webhooks, the docs' checks),
 * follows from the entry.
 */
import { z } from "zod/v4";
import { orList } from "../core/lists";
import { filedByName } from "../core/registry";
import { addressChange } from "./kinds/address-change";
import { cancelOrder } from "./kinds/cancel-order";
import type { ActionFacts, ApplyTool, ChangeKind, MoneyRule } from "./kinds/kind";
import { resolution } from "./kinds/resolution";
import type { OrderRecord } from "./order-record";

/** Every kind, under the name its changes carry. */
const KINDS = filedByName({ resolution, address_change: addressChange, cancel_order: cancelOrder });

type Kinds = typeof KINDS;
export type ChangeKindName = keyof Kinds;

/** Per kind: the change a proposal pins, and what its proposing tool takes besides the order id. */
type Changes = { [K in ChangeKindName]: z.output<Kinds[K]["change"]> };
type Inputs = { [K in ChangeKindName]: z.output<z.ZodObject<Kinds[K]["proposeTool"]["input"]>> };
export type KindChange<K extends ChangeKindName> = Changes[K];
export type KindInput<K extends ChangeKindName> = Inputs[K];
type KindOf<K extends ChangeKindName> = ChangeKind<Kinds[K]["change"], Kinds[K]["proposeTool"]["input"]>;

/** The registry, typed per name: a kind's rule and apply take that kind's own input and change. */
export const CHANGE_KINDS: { readonly [K in ChangeKindName]: KindOf<K> } = KINDS;

/** Every kind's name, in the registry's order (the order the tools are listed in). */
export const CHANGE_KIND_NAMES = Object.keys(KINDS) as ChangeKindName[];
const EVERY_KIND = CHANGE_KIND_NAMES.map((name) => KINDS[name]);

export const ChangeKindSchema = z.enum(CHANGE_KIND_NAMES as [ChangeKindName, ...ChangeKindName[]]);

type AnyChangeSchema = Kinds[ChangeKindName]["change"];
/** What a proposal changes: one of the kinds' changes, told apart by `kind`. */
export const OrderChangeSchema = z.discriminatedUnion(
  "kind",
  EVERY_KIND.map((kind) => kind.change) as [AnyChangeSchema, ...AnyChangeSchema[]],
);
export type OrderChange = z.infer<typeof OrderChangeSchema>;

export type ChangeAction = OrderChange["action"];

/** Every action of every kind, with its facts; an action belongs to one kind only. */
const ACTIONS = new Map<string, ActionFacts>();
for (const kind of EVERY_KIND) {
  for (const [action, facts] of Object.entries<ActionFacts>(kind.actions)) {
    if (ACTIONS.has(action)) throw new Error(`action ${action} is declared by two change kinds; an action names one`);
    ACTIONS.set(action, facts);
  }
}

export const ChangeActionSchema = z.enum([...ACTIONS.keys()] as [ChangeAction, ...ChangeAction[]]);

function factsOf(action: ChangeAction): ActionFacts {
  const facts = ACTIONS.get(action);
  if (!facts) throw new Error(`no change kind declares the action ${action}`);
  return facts;
}

/** Every action's name in words, for the approval page and (in their documents) the cards. */
export const ACTION_LABELS = Object.fromEntries(
  [...ACTIONS].map(([action, facts]) => [action, facts.label]),
) as Readonly<Record<ChangeAction, string>>;

export function actionLabel(action: ChangeAction): string {
  return factsOf(action).label;
}

/** How the action moves the customer's money; null when it moves none. */
export function moneyRule(action: ChangeAction): MoneyRule | null {
  return factsOf(action).money;
}

/** Whether the action moves the customer's money (a refund, a voided hold, a cancelled sale): four eyes reads this. */
export function movesMoney(action: ChangeAction): boolean {
  return moneyRule(action) !== null;
}

function kindOf<K extends ChangeKindName>(change: KindChange<K>): KindOf<K> {
  // The one correlation the compiler cannot follow: a change's `kind` is the key of the module that declares it.
  return CHANGE_KINDS[change.kind as K];
}

/** The change in one line: enough to tell two proposals for the same order apart. */
export function changeSummary(change: OrderChange): string {
  return kindOf(change).summary(change);
}

/** The order after the change (see ChangeKind.apply). */
export function applyChange(order: OrderRecord, change: OrderChange, at: string): OrderRecord {
  return kindOf(change).apply(order, change, at);
}

/** Every event type that records an applied proposal. */
export const APPLIED_EVENT_TYPES: readonly string[] = EVERY_KIND.map((kind) => kind.appliedEvent);

/** The proposing tools, in the registry's order. */
export const PROPOSE_TOOL_NAMES: readonly string[] = EVERY_KIND.map((kind) => kind.proposeTool.name);

/** An apply tool and the kinds it applies (kinds may share one), in the order the tools are listed. */
export interface ApplyToolUse {
  readonly tool: ApplyTool;
  readonly kinds: readonly ChangeKindName[];
  /** The proposing tools whose proposals it applies. */
  readonly after: readonly string[];
}

export const APPLY_TOOLS: readonly ApplyToolUse[] = [...new Set(EVERY_KIND.map((k) => k.applyTool.name))].map(
  (name) => {
    const kinds = EVERY_KIND.filter((kind) => kind.applyTool.name === name);
    const tool = kinds[0]?.applyTool ?? { name, title: name };
    if (kinds.some((kind) => kind.applyTool.title !== tool.title))
      throw new Error(`the kinds that share ${name} give it different titles; declare the tool once and share it`);
    return { tool, kinds: kinds.map((kind) => kind.name), after: kinds.map((kind) => kind.proposeTool.name) };
  },
);

function onlyKindWhere(what: string, test: (kind: (typeof EVERY_KIND)[number]) => boolean) {
  const found = EVERY_KIND.filter(test);
  const [kind] = found;
  if (found.length !== 1 || kind === undefined)
    throw new Error(`exactly one change kind must be ${what}; ${found.length} are`);
  return kind;
}

/** The kind whose proposing tool takes nothing but the order id: the server picks the fix from its playbook. */
export const PLAYBOOK_KIND = onlyKindWhere(
  "proposed by order id alone",
  (kind) => Object.keys(kind.proposeTool.input).length === 0,
);

/** The kind whose proposing tool takes a new shipping address. */
export const ADDRESS_KIND = onlyKindWhere("proposed with an address", (kind) => "address" in kind.proposeTool.input);

/** "propose_resolution, prepare_address_change or …": every proposing tool, for the texts that list them. */
export const ANY_PROPOSE_TOOL = orList(PROPOSE_TOOL_NAMES);

/** "confirm_resolution (after propose_resolution) or …": which tool applies what, for the texts that list them. */
export const APPLY_TOOL_GUIDE = orList(APPLY_TOOLS.map((use) => `${use.tool.name} (after ${orList(use.after)})`));
