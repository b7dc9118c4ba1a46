/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import devVars from "../../.dev.vars?raw";
import { loadConfig } from "../../src/config/config";
import { planCapacitySearch, type SearchRequest } from "../../src/runs/capacity-plan";
import { planRun, type RunRequest } from "../../src/runs/plan";
import { ThresholdSchema } from "../../src/runs/run-schemas";

// Every load test the README and docs/ show must run as written on `npm run
// dev`'s own configuration (.dev.vars over the schema's defaults): a reader who
// tries an example gets a run, not a refusal over MAX_RUN_RATE.

const loaded = import.meta.glob<string>(["../../README.md", "../../docs/*.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});
const pages = Object.entries(loaded).map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), text] as const);

/** `NAME = "value"` lines, as wrangler reads .dev.vars. */
const localVars = Object.fromEntries(
  devVars.split("\n").flatMap((line) => {
    const match = /^([A-Z0-9_]+)\s*=\s*(["'])(.*)\2\s*$/.exec(line);
    return match ? [[match[1], match[3]]] : [];
  }),
);
const local = loadConfig(localVars);
if (!local.ok) throw new Error(`.dev.vars does not parse: ${local.error.message}`);
const caps = local.value.runs;

/** Each documented call of `tool`: the JSON blocks that name it. */
const callsOf = (tool: string) =>
  pages.flatMap(([page, text]) =>
    [...text.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((block) => {
      const body = block[1] ?? "";
      if (!body.includes(`"name": "${tool}"`)) return [];
      return [{ page, call: JSON.parse(body) as { arguments: Record<string, unknown> } }];
    }),
  );
const calls = callsOf("start_traffic_run");
const searches = callsOf("start_capacity_search");

/** How the documented requests say how long; a new wording needs a line here. */
const SPANS: Record<string, number> = { "half a minute": 30, "a minute": 60, "one minute": 60, "five minutes": 300 };

/** Each request a reader is shown asking for a load: "N orders a second for <span>". */
const requests = pages.flatMap(([page, text]) =>
  [...text.matchAll(/"[^"\n]*?(\d+) orders a second for ([a-z ]+?)[,;.]/g)].map((match) => ({
    page,
    rate: Number(match[1]),
    span: match[2] ?? "",
  })),
);

describe("the documented load tests on npm run dev", () => {
  it("finds the examples it holds", () => {
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(searches.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeGreaterThanOrEqual(3);
  });

  it.each(calls.map((c) => [c.page, c.call]))("%s: the start_traffic_run call is accepted as written", (_, call) => {
    const args = call.arguments as Omit<RunRequest, "mode" | "thresholds"> & {
      mode?: RunRequest["mode"];
      thresholds?: unknown[];
    };
    const request: RunRequest = {
      ...args,
      mode: args.mode ?? "seeded",
      thresholds: (args.thresholds ?? []).map((t) => ThresholdSchema.parse(t)),
    };
    const planned = planRun(request, 1, caps);
    expect(planned.ok ? "accepted" : planned.error.message).toBe("accepted");
  });

  it.each(searches.map((c) => [c.page, c.call]))(
    "%s: the start_capacity_search call is accepted as written",
    (_, call) => {
      // step_seconds has a default in the tool's schema (10): a call may leave it out.
      const args = call.arguments as Omit<SearchRequest, "mode" | "objective" | "step_seconds"> & {
        objective: unknown[];
        step_seconds?: number;
      };
      const request: SearchRequest = {
        ...args,
        step_seconds: args.step_seconds ?? 10,
        mode: "seeded",
        objective: args.objective.map((t) => ThresholdSchema.parse(t)),
      };
      const planned = planCapacitySearch(request, 1, caps);
      expect(planned.ok ? "accepted" : planned.error.message).toBe("accepted");
    },
  );

  it.each(requests.map((r) => [r.page, `${r.rate} orders a second for ${r.span}`, r]))(
    "%s: %s is within the local caps",
    (_, __, request) => {
      const seconds = SPANS[request.span];
      expect(seconds, `add "${request.span}" to SPANS`).toBeDefined();
      expect(request.rate).toBeLessThanOrEqual(caps.maxRate);
      expect(request.rate * (seconds ?? 0)).toBeLessThanOrEqual(caps.maxOrders);
      expect(seconds ?? 0).toBeLessThanOrEqual(caps.maxSeconds);
    },
  );
});
