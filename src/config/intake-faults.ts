/**
 * INTAKE_FAULTS makes the built-in intake API misbehave on purpose, so a
 * traffic run can be checked against a target whose behaviour is known:
 *
 *   stall=1000ms/5s   the first 1000 ms of every 5-second wall-clock window,
 *                     every order is held until the window's stall is over
 *   latency=20ms      every order waits this long before it is handled
 *   fail=2%           this share of orders is answered 503
 *
 * Clauses are joined by commas, each at most once: `stall=1000ms/5s,latency=20ms,fail=2%`.
 */
import { z } from "zod/v4";

export const INTAKE_FAULTS_EXAMPLE = "stall=1000ms/5s,latency=20ms,fail=2%";
const MAX_DELAY_MS = 60_000;
const MAX_STALL_PERIOD_MS = 60 * 60_000;

const Duration = z
  .string()
  .regex(/^\d+(?:\.\d+)?(?:ms|s)$/, "must be a duration like 250ms or 2s")
  .transform((text) => (text.endsWith("ms") ? Number(text.slice(0, -2)) : Number(text.slice(0, -1)) * 1000));

const Percent = z
  .string()
  .regex(/^\d+(?:\.\d+)?%$/, "must be a percentage like 2% or 0.5%")
  .transform((text) => Number(text.slice(0, -1)))
  .pipe(z.number().max(100, "must be at most 100%"))
  .transform((percent) => percent / 100);

const Latency = Duration.pipe(z.number().max(MAX_DELAY_MS, `must be at most ${MAX_DELAY_MS / 1000}s`));

const Stall = z
  .string()
  .regex(/^[^/]+\/[^/]+$/, "must be <stall>/<period>, like 1000ms/5s")
  .transform((text) => text.split("/") as [string, string])
  .pipe(z.tuple([Duration, Duration]))
  .transform(([ms, everyMs]) => ({ ms, everyMs }) as const)
  .superRefine(({ ms, everyMs }, ctx) => {
    if (ms <= 0) ctx.addIssue({ code: "custom", message: "the stall must last longer than 0ms" });
    if (ms >= everyMs)
      ctx.addIssue({ code: "custom", message: "the stall must be shorter than its period, or the API never answers" });
    if (everyMs > MAX_STALL_PERIOD_MS) ctx.addIssue({ code: "custom", message: "the period must be at most 1h" });
  });

const CLAUSES = { latency: Latency, fail: Percent, stall: Stall } as const;
type Clause = keyof typeof CLAUSES;

function isClause(name: string): name is Clause {
  return Object.hasOwn(CLAUSES, name);
}

/** Each problem names the clause it is about, so a long setting is easy to fix. */
export const IntakeFaultsSchema = z.string().transform((spec, ctx) => {
  const found: { -readonly [C in Clause]?: z.output<(typeof CLAUSES)[C]> } = {};
  for (const clause of spec.split(",").map((part) => part.trim())) {
    const [name = "", value, ...rest] = clause.split("=");
    if (!isClause(name) || value === undefined || rest.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `"${clause}" is not a fault; write stall=<time>/<period>, latency=<time> or fail=<percent>, e.g. ${INTAKE_FAULTS_EXAMPLE}`,
      });
      continue;
    }
    if (found[name] !== undefined) {
      ctx.addIssue({ code: "custom", message: `${name} is given twice; give each fault once` });
      continue;
    }
    const parsed = CLAUSES[name].safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: "custom", message: `${name}=${value}: ${issue.message}` });
      continue;
    }
    Object.assign(found, { [name]: parsed.data });
  }
  return {
    latencyMs: found.latency ?? 0,
    /** 0 to 1. */
    failShare: found.fail ?? 0,
    /** Windows start at multiples of `everyMs` since the epoch, so every isolate stalls at once. */
    stall: found.stall ?? null,
    /** The setting as written, to name it in the answers it causes. */
    spec,
  } as const;
});

export type IntakeFaults = z.output<typeof IntakeFaultsSchema>;

/** A deployed API that fails on purpose is an outage: it takes a second, deliberate switch. */
export function intakeFaultProblems(
  environment: "development" | "production",
  faults: IntakeFaults | undefined,
  allowedInProduction: boolean,
): string[] {
  if (faults === undefined || environment !== "production" || allowedInProduction) return [];
  return [
    "INTAKE_FAULTS makes the built-in order API slow or fail on purpose and is refused in production; remove it, or also set INTAKE_FAULTS_IN_PRODUCTION=on if this deployment is meant for fault drills",
  ];
}
