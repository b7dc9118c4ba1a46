/**
 * Words only the approval app's run pages need. Everything an approver and an
 * operator both read (actions, states, proposal statuses) is the shared
 * vocabulary in orders/labels.ts and proposals/status-labels.ts.
 */
import type { RunStatus } from "../../runs/run-schemas";

export const RUN_STATUS_LABELS: Readonly<Record<RunStatus, string>> = {
  running: "Running",
  completed: "Completed",
  stopped: "Stopped",
  aborted: "Aborted",
  interrupted: "Interrupted",
  failed: "Failed",
};

export function runStatusLabel(status: RunStatus): string {
  return RUN_STATUS_LABELS[status];
}
