// The traffic run's sustained rate in `npm run bench`, compared with the
// floor's object -> binding -> D1 rate like send_orders. The run engine's
// report is being reshaped (orders it had to drop, percentiles over the whole
// run), so the figure is read here, in one place, once that report exists.
import type { Project } from "./bench-targets.ts";

export interface TrafficRunContext {
  /** The project on workerd's entry port, as the other figures use it. */
  readonly project: Project;
  /** 0, 1, 2: called once per bench round, after send_orders. */
  readonly round: number;
  /** `--short`: keep the run to a second or two. */
  readonly short: boolean;
}

export interface TrafficRunFigure {
  /** Orders the run had answered per second of its sustained phase. */
  readonly ordersPerSecond: number;
  /** Orders the run could not send on time and dropped; printed beside the rate. */
  readonly dropped?: number;
}

/**
 * Start a run with `start_traffic_run` at a rate above what the target can
 * take, wait for it to end, and read its sustained rate from the run's
 * report. Until the new report lands this measures nothing: the bench prints
 * the row as not measured instead of a figure the engine is about to change.
 */
export async function trafficRunFigure(_context: TrafficRunContext): Promise<TrafficRunFigure | undefined> {
  return undefined;
}
