/**
 * Renders a proposal (propose_resolution, prepare_address_change, get_proposal)
 * or a confirmation answer (confirm_resolution, apply_approved_change): status,
 * the change in one line, why it is stale or superseded, expiry, and the
 * before/after rows. Its one button asks the host to open the approval page.
 */
import type { ConfirmResult, ProposalView } from "../src/proposals/proposal-schemas";
import { absolute, badge, type Child, h, mono, unbroken, when } from "./dom";
import { openLinkButton, startCard } from "./host";
import { words } from "./words";

/** Either answer: a confirmation carries the proposal's identity, status and outcome, and a message. */
type Shown = Omit<ConfirmResult, "status"> &
  Partial<Omit<ProposalView, keyof ConfirmResult>> & {
    readonly status: ProposalView["status"] | ConfirmResult["status"];
  };

const TONE: Readonly<Record<Shown["status"], string>> = {
  pending_approval: "warn",
  approval_required: "warn",
  approved: "info",
  applying: "warn",
  applied: "ok",
  failed: "bad",
  rejected: "bad",
  expired: "muted",
  stale: "bad",
  superseded: "muted",
};

const SETTLED: readonly string[] = ["applying", "applied", "failed", "rejected", "expired", "stale", "superseded"];

/** The approval app's next step (web/approval/explain.ts), in the same words; ids are kept whole. */
function nextStep(data: Shown): Child[] {
  const id = mono(data.proposal_id);
  switch (data.status) {
    case "pending_approval":
    case "approval_required":
      return [
        "Nothing has changed. A person with an approver token approves or rejects it on the approval page; then ask the agent to confirm proposal ",
        id,
        ".",
      ];
    case "approved":
      return ["Approved. Nothing has changed yet: ask the agent to confirm proposal ", id, "."];
    case "applying":
      return [
        "Sent to the provider, which has not confirmed it yet. The server settles it by itself; the change is never made twice.",
      ];
    case "failed":
      return [
        "The provider refused the change; nothing was changed. Ask the agent for a new proposal if the change is still needed.",
      ];
    case "applied":
      return [
        "Applied: ",
        words.action(data.action).toLowerCase(),
        " on order ",
        mono(data.order_id),
        ". Nothing more to do.",
      ];
    case "rejected":
      return ["Rejected. Nothing will change; ask the agent for a new proposal if the change is still needed."];
    case "stale":
    case "expired":
    case "superseded":
      return ["This proposal can no longer be approved or applied; ask the agent for a new one."];
    default:
      return [];
  }
}

/** One before/after cell: a line per entry, in words. */
const cell = (field: string, value: string) => words.change(field, value).map((line) => h("div", null, unbroken(line)));

function details(data: Shown): HTMLElement {
  const { outcome } = data;
  const settled = SETTLED.includes(data.status);
  return h(
    "dl",
    null,
    h("dt", null, "Action"),
    h("dd", null, words.action(data.action)),
    data.risk && [h("dt", null, "Risk"), h("dd", null, words.risk(data.risk))],
    data.expires_at &&
      !settled && [
        h("dt", null, "Expires"),
        h(
          "dd",
          { id: "expiry" },
          when(data.expires_at),
          h("span", { class: "muted small" }, " (", absolute(data.expires_at), ")"),
        ),
      ],
    data.decided_by && [
      h("dt", null, data.status === "rejected" ? "Rejected by" : "Approved by"),
      h(
        "dd",
        { id: "decided" },
        data.decided_by,
        data.decided_at && [", ", when(data.decided_at)],
        data.decision_reason && h("div", { class: "small muted" }, data.decision_reason),
      ),
    ],
    outcome && [
      h("dt", null, "Applied"),
      h(
        "dd",
        { id: "applied" },
        when(outcome.applied_at),
        ` by ${outcome.applied_by}, approved by ${outcome.approved_by}; version ${outcome.order_version_before} → ${outcome.order_version_after}`,
      ),
    ],
    typeof data.pinned_version === "number" && [
      h("dt", null, "Order version"),
      h("dd", null, String(data.pinned_version)),
    ],
  );
}

function render(data: Shown): Node {
  const outcome = data.outcome || null;
  // Once applied, what did change (as the approval page shows it), not what was expected to.
  const rows =
    outcome && Array.isArray(outcome.changes)
      ? outcome.changes
      : Array.isArray(data.expected_changes)
        ? data.expected_changes
        : [];
  const linkStatus = h("p", { class: "small muted", role: "status" });
  const open = data.approval_url ? openLinkButton(data.approval_url, linkStatus) : null;
  return h(
    "section",
    null,
    h(
      "div",
      { class: "head" },
      h("h1", { id: "summary" }, data.change_summary || words.action(data.action)),
      h("span", { id: "status" }, badge(words.status(data.status), TONE[data.status])),
    ),
    h("p", { class: "muted small" }, "Proposal ", mono(data.proposal_id), " for order ", mono(data.order_id)),
    data.status_reason && h("p", { class: "note", id: "reason" }, unbroken(data.status_reason)),
    // approval_required's message is the model's instruction (the raw link, an ISO deadline); the card says it in words
    // below and has the button.
    data.message &&
      data.status !== "approval_required" &&
      h("p", { class: "note", id: "message" }, unbroken(data.message)),
    details(data),
    data.rationale && h("p", null, unbroken(data.rationale)),
    rows.length > 0 && [
      h("h2", null, outcome ? "What changed" : "What will change"),
      h(
        "table",
        { id: "diff" },
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { scope: "col" }, "Field"),
            h("th", { scope: "col" }, "Before"),
            h("th", { scope: "col" }, "After"),
          ),
        ),
        h(
          "tbody",
          null,
          rows.map((row) =>
            h(
              "tr",
              null,
              h("th", { scope: "row" }, words.field(row.field)),
              h("td", { class: "before" }, cell(row.field, row.before)),
              h("td", null, cell(row.field, row.after)),
            ),
          ),
        ),
      ),
    ],
    h("p", { class: "note", id: "next" }, nextStep(data)),
    open &&
      h(
        "div",
        { class: "line" },
        open,
        h("span", { class: "small muted" }, "This card cannot approve or apply anything."),
      ),
    linkStatus,
  );
}

startCard(render);
