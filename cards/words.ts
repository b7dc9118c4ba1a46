/**
 * The approval app's words, for the cards: the same functions the server
 * uses (src/orders/labels.ts, src/proposals/status-labels.ts), bundled into each
 * card. A card draws whatever its host hands it, so every value is taken as
 * possibly unknown: a name the vocabulary lacks reads humanized, and an
 * absent one reads as nothing, as on the approval pages.
 */

import type { Risk } from "../src/core/risk";
import {
  actionLabel,
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
import type { ChangeAction } from "../src/orders/playbook";
import type { ConfirmResult, ProposalStatus } from "../src/proposals/schemas";
import { proposalStatusLabel } from "../src/proposals/status-labels";

const text = (value: unknown): string => String(value ?? "");

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
  action: (value: unknown) => orHumanized<ChangeAction>(actionLabel, value),
  risk: (value: unknown) => orHumanized<Risk>(riskLabel, value),
  status: (value: unknown) => orHumanized<ProposalStatus | ConfirmResult["status"]>(proposalStatusLabel, value),
  /** One before/after value of a change, one line per entry. */
  change: (field: unknown, value: unknown) => changeValueLines(text(field), text(value)),
} as const;
