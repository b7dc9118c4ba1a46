/**
 * Stands in for `cron-schedule` in the deployed bundle (see [alias] in
 * wrangler.toml). `agents` uses it for one thing: the next time of a schedule
 * given as a cron expression. The AccountAgent schedules by date only (a run's
 * next tick, the apply reconciler's next check); the Worker's own cron trigger
 * is wrangler.toml's, not the Agent's.
 */
export function parseCronExpression(): never {
  throw new Error("cron-schedule is left out of this bundle (wrangler.toml [alias]): the Agent schedules by date only");
}
