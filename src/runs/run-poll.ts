/**
 * What a poll answers by default: a run or a search as an agent needs it to
 * decide its next step, a fixed size however long the run. The full answer
 * (the plan, every figure, the intervals, every step) is the record's own
 * projection (summary.ts, capacity-answer.ts) and is given on request; this
 * module only picks from it, so a field the engine adds reaches the full
 * answer at once and the poll when it is named here.
 */
import { z } from "zod/v4";
import { type CapacitySearch, CapacitySearchSchema, SearchStepSchema } from "./capacity-schemas";
import { type RunDetail, RunDetailSchema, VerdictSchema } from "./run-schemas";

/** The named fields of `value`, as zod's `.pick` names them. */
function pick<T extends object, K extends keyof T>(value: T, fields: Readonly<Record<K, true>>): Pick<T, K> {
  const picked: Partial<Pick<T, K>> = {};
  for (const field of Object.keys(fields) as K[]) picked[field] = value[field];
  return picked as Pick<T, K>;
}

export const DetailSchema = z.enum(["summary", "full"]);
export type Detail = z.infer<typeof DetailSchema>;

/**
 * The fields of a run a poll carries: status, tally, rates, latency from the scheduled time, what limited it, the
 * link; and the verdict, each check with its measured value (its `failed` sentences say the same again, so only
 * the full answer has them). A figure the engine adds to the summary (e.g. per location) is named here to reach it.
 */
const RUN_POLL_FIELDS = {
  run_id: true,
  status: true,
  started_at: true,
  finished_at: true,
  sent: true,
  accepted: true,
  rejected: true,
  errors: true,
  dropped: true,
  current_rate: true,
  planned_rate: true,
  achieved_rate: true,
  latency: true,
  limits: true,
  // Only a run started with load zones has them: each zone's figures beside the whole.
  locations: true,
  paused: true,
  problem: true,
  run_url: true,
} as const;

const MORE_OF_A_RUN =
  'detail:"full" adds the plan, status codes, service time, generator, drill, intervals and each limit in full';

/**
 * How much of each limit's sentence a poll carries: its first clause names what limited the run, and the rest (the
 * figures behind it and what to change) is in detail "full". A limit's sentences grow with what the engine measures,
 * and a poll's budget must not.
 */
export const POLL_LIMIT_CHARS = 160;

function clipped(sentence: string): string {
  return sentence.length <= POLL_LIMIT_CHARS ? sentence : `${sentence.slice(0, POLL_LIMIT_CHARS - 1).trimEnd()}…`;
}

/**
 * get_traffic_run's answer: the poll's fields always, the rest of the run only
 * with detail "full". `more` is set on a summary, and says how to get the rest.
 */
export const RunPollSchema = RunDetailSchema.partial().extend({
  ...RunDetailSchema.pick(RUN_POLL_FIELDS).shape,
  verdict: VerdictSchema.partial({ failed: true }),
  more: z.string().optional(),
});
export type RunPoll = z.infer<typeof RunPollSchema>;

export function runPoll(run: RunDetail, detail: Detail): RunPoll {
  if (detail === "full") return run;
  const { failed: _told, ...verdict } = run.verdict;
  return { ...pick(run, RUN_POLL_FIELDS), limits: run.limits.map(clipped), verdict, more: MORE_OF_A_RUN };
}

/** The latest steps a search poll shows; highest_passing_rate and lowest_failing_rate say where the knee lies. */
export const POLL_STEPS = 3;

const SEARCH_POLL_FIELDS = {
  search_id: true,
  status: true,
  started_at: true,
  finished_at: true,
  answer: true,
  advice: true,
  outcome: true,
  highest_passing_rate: true,
  lowest_failing_rate: true,
  tolerance: true,
  broke_first: true,
  next_step: true,
  problem: true,
  search_url: true,
} as const;

const LATEST_STEP_FIELDS = {
  phase: true,
  rate_per_second: true,
  run_id: true,
  status: true,
  verdict: true,
  p99_ms: true,
  error_rate: true,
  dropped_rate: true,
} as const;
const LatestStepSchema = SearchStepSchema.pick(LATEST_STEP_FIELDS);

const MORE_OF_A_SEARCH = 'detail:"full" adds the plan and every step\'s figures';

/** get_capacity_search's answer: the poll's fields and the latest steps, or with detail "full" the whole search. */
export const SearchPollSchema = CapacitySearchSchema.partial().extend({
  ...CapacitySearchSchema.pick(SEARCH_POLL_FIELDS).shape,
  steps_run: z.number().int().optional(),
  latest_steps: z.array(LatestStepSchema).optional(),
  more: z.string().optional(),
});
export type SearchPoll = z.infer<typeof SearchPollSchema>;

export function searchPoll(search: CapacitySearch, detail: Detail): SearchPoll {
  if (detail === "full") return search;
  return {
    ...pick(search, SEARCH_POLL_FIELDS),
    steps_run: search.steps.length,
    latest_steps: search.steps.slice(-POLL_STEPS).map((step) => pick(step, LATEST_STEP_FIELDS)),
    more: MORE_OF_A_SEARCH,
  };
}
