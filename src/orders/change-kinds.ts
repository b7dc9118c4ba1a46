/**
 * The kinds of change a proposal can make, and everything that differs
 * between them, in one Record: the audit event an apply writes, the tool that
 * applies it, what a sentence calls it. A new kind is one name here; the
 * compiler then asks for its entry, and every switch over a change's kind
 * names the place that has to handle it.
 *
 * Imports nothing: store/invariants.ts reads the applied events from here,
 * and scripts load that file in Node as it is.
 */
export const CHANGE_KIND_NAMES = ["resolution", "address_change"] as const;

export type ChangeKind = (typeof CHANGE_KIND_NAMES)[number];

interface ChangeKindFacts {
  /** The audit event the one apply of such a proposal writes. */
  readonly appliedEvent: string;
  /** The MCP tool that applies such a proposal once a person approved it. */
  readonly confirmTool: string;
  /** What a sentence calls it: "an approved <noun>". */
  readonly noun: string;
}

export const CHANGE_KINDS: Readonly<Record<ChangeKind, ChangeKindFacts>> = {
  resolution: { appliedEvent: "resolution_applied", confirmTool: "confirm_resolution", noun: "resolution" },
  address_change: {
    appliedEvent: "address_change_applied",
    confirmTool: "apply_approved_change",
    noun: "address change",
  },
};

/** Every event type that records an applied proposal. */
export const APPLIED_EVENT_TYPES: readonly string[] = CHANGE_KIND_NAMES.map((kind) => CHANGE_KINDS[kind].appliedEvent);
