/**
 * The approval app's words, for the cards: the same functions the server
 * uses (src/orders/labels.ts, src/proposals/status-labels.ts), bundled into each
 * card, and the actions' words the server writes into the card's document. A card draws whatever its host hands it, so
 * every value is taken as
 * possibly unknown: a name the vocabulary lacks reads humanized, and an
 * absent one reads as nothing, as on the approval pages.
 */

import type { Risk } from "../src/core/risk";
import {
  allocationLabel,
  changeValueLines,
  exceptionLabel,
  exceptionStateLabel,
  fieldLabel,
  humanize,
  humanizeText,
  orderStatusLabel,
  paymentLabel,
  riskLabel,
} from "../src/orders/labels";
import type { ConfirmResult, ProposalStatus } from "../src/proposals/proposal-schemas";
import { proposalStatusLabel } from "../src/proposals/status-labels";

const text = (value: unknown): string => String(value ?? "");

/**
 * The actions' words, which the server writes into the card's document from
 * the change kinds (src/mcp/cards/card-page.ts): the kinds are not bundled here.
 */
function actionLabels(): Readonly<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(document.getElementById("card")?.dataset.actionLabels ?? "{}");
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}
const ACTION_LABELS = actionLabels();

function actionLabel(value: unknown): string {
  const name = text(value);
  return (Object.hasOwn(ACTION_LABELS, name) ? ACTION_LABELS[name] : undefined) ?? humanize(name);
}

/** A label from a table typed by its schema, or the name humanized when the value is not in it. */
function orHumanized<T extends string>(words: (value: T) => string, value: unknown): string {
  const label: string | undefined = words(text(value) as T);
  return label ?? humanize(text(value));
}

export const words = {
  name: (value: unknown) => humanize(text(value)),
  text: (value: unknown) => humanizeText(text(value)),
  state: (value: unknown) => orderStatusLabel(text(value)),
  exception: (value: unknown) => exceptionLabel(text(value)),
  exceptionState: (value: unknown) => exceptionStateLabel(text(value)),
  payment: (value: unknown) => paymentLabel(text(value)),
  allocation: (value: unknown) => allocationLabel(text(value)),
  field: (value: unknown) => fieldLabel(text(value)),
  action: actionLabel,
  risk: (value: unknown) => orHumanized<Risk>(riskLabel, value),
  status: (value: unknown) => orHumanized<ProposalStatus | ConfirmResult["status"]>(proposalStatusLabel, value),
  /** One before/after value of a change, one line per entry. */
  change: (field: unknown, value: unknown) => changeValueLines(text(field), text(value)),
} as const;
