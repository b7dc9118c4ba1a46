/**
 * The parts of the run page that read the summary's judgement: the verdict, the latency table, the drill and the plan.
 */
import { html } from "hono/html";
import type { Html } from "../../http/html-page";
import { humanize } from "../../orders/labels";
import type { LatencyFigures } from "../../runs/histogram";
import type { RunDetail } from "../../runs/run-schemas";
import { LATENCY_FIELDS } from "../../runs/scheduled-latency";
import { describeThreshold } from "../../runs/verdict";
import { latency, span } from "../format";
import { textTag } from "../pages";

export function verdictCard(run: RunDetail): Html {
  const { verdict } = run;
  const checks = verdict.checks.map(
    (check) =>
      html`<li data-check="${check.passed ? "passed" : "failed"}">${check.passed ? "Held" : "Failed"}: ${checkName(check.check)}${check.measured === null ? "" : html` (measured ${check.at_least ? "at least " : ""}${check.measured})`}</li>`,
  );
  if (verdict.result === null) {
    return html`<div class="card" id="verdict"><p><b>Verdict when it ends.</b> So far:</p><ul>${checks}</ul></div>`;
  }
  const passed = verdict.result === "passed";
  const why = verdict.inconclusive_reason;
  // A pass shows what each check measured beside it; otherwise the failures come first and the rest on request.
  const all = passed
    ? html`<ul id="checks">${checks}</ul>`
    : html`<details><summary>Every check</summary><ul>${checks}</ul></details>`;
  return html`<div class="card verdict-${verdict.result}" id="verdict" role="status"><p><b>Verdict: ${verdict.result}</b>${passed ? ", every check held:" : ""}</p>
${passed && run.generator.limited ? html`<p id="generator-note">${GENERATOR_LIMITED_PASS}</p>` : ""}
${why === null ? "" : html`<p>${textTag(why)}</p>`}
${verdict.failed.length > 0 ? html`<ul>${verdict.failed.map((sentence) => html`<li>${textTag(sentence)}</li>`)}</ul>` : ""}
${all}</div>`;
}

/** What a pass means when the generator, not the target, was the limit, in one sentence. */
export const GENERATOR_LIMITED_PASS =
  "The load generator fell behind its own schedule in this run, so the target met every check at a lower load than planned: it holds at least what was sent, and this run cannot say whether it holds the planned rate.";

/**
 * A check in code type when it is a threshold ("p99_ms < 300"), which never wraps; one that is a
 * sentence ("every planned order left within max_lateness_ms (none dropped)") as text, which may.
 */
function checkName(check: string): Html {
  if (/^\S+ [<>]=? \S+$/.test(check)) return html`<code>${check}</code>`;
  // The page reads in words: the run's parameter is named as a person would say it.
  return html`${textTag(check.replace(/\bmax_lateness_ms\b/g, "the allowed lateness"))}`;
}

function latencyRow(label: string, figures: LatencyFigures, lowerBounds: readonly string[] = []): Html {
  const cells = LATENCY_FIELDS.map((field) =>
    lowerBounds.includes(field)
      ? html`<td data-label="${FIELD_HEADS[field]}" data-at-least title="a lower bound: too many orders were dropped to know it">≥ ${latency(figures[field])}</td>`
      : html`<td data-label="${FIELD_HEADS[field]}">${latency(figures[field])}</td>`,
  );
  return html`<tr><th>${label}</th>${cells}<td data-label="orders">${figures.count}</td></tr>`;
}

/** The column heads, also each figure's label where a phone stacks a row's figures. */
const FIELD_HEADS: Readonly<Record<(typeof LATENCY_FIELDS)[number], string>> = {
  p50_ms: "p50",
  p90_ms: "p90",
  p95_ms: "p95",
  p99_ms: "p99",
  p999_ms: "p99.9",
  max_ms: "max",
};

/**
 * Run-wide, from the histograms: the scheduled-time latency first, as the
 * figure a user would have felt. On a phone each row stacks its figures,
 * each labelled, under the row's name: nothing is hidden off to the side.
 */
export function latencyTable(run: RunDetail): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Run-wide latency"><table class="figures">
<tr><th></th>${LATENCY_FIELDS.map((field) => html`<th>${FIELD_HEADS[field]}</th>`)}<th>orders</th></tr>
${latencyRow("From scheduled time", run.latency, run.latency.lower_bounds)}${latencyRow("Service time", run.service)}${latencyRow("Sending lateness", run.lateness)}
</table></div>
<p class="muted">Latency is timed from the moment each order was scheduled to leave, so waiting behind a slow target counts, and a dropped order counts at how long it had waited when dropped (≥ marks a figure that is only a lower bound); service time, of the orders sent, starts when the order was handed to fetch; sending lateness is how late each order left.</p>`;
}

export function drillCard(run: RunDetail): Html {
  const rows = Object.entries(run.drill).map(
    ([reason, tally]) =>
      html`<tr><th>${humanize(reason)}</th><td>${tally.sent} sent, ${tally.as_expected} rejected as expected${tally.mismatched > 0 ? html`, <b>${tally.mismatched} not</b>` : ""}</td></tr>`,
  );
  if (rows.length === 0) return html``;
  const findings = run.findings.map((finding) => html`<li>${textTag(finding)}</li>`);
  return html`<h2>Rejection drill</h2>
<div class="card" id="drill"><table>${rows}</table>${findings.length > 0 ? html`<p><b>Findings</b></p><ul>${findings}</ul>` : ""}</div>`;
}

export function planCard(run: RunDetail): Html {
  const { plan } = run;
  let from = plan.start_rate;
  const stages = plan.stages.map((stage) => {
    const text =
      stage.rate_per_second === from ? `hold ${stage.rate_per_second}/s` : `${from}/s to ${stage.rate_per_second}/s`;
    from = stage.rate_per_second;
    return html`<li>${span(stage.duration_seconds * 1000)}: ${text}</li>`;
  });
  const shares = Object.entries(plan.invalid_share).map(
    ([reason, share]) => `${humanize(reason)} ${Math.round((share ?? 0) * 1000) / 10} %`,
  );
  return html`<table>
<tr><th><span class="label">Stages</span></th><td><ul>${stages}</ul></td></tr>
<tr><th><span class="label">Orders</span></th><td>${plan.total_orders} in ${span(plan.duration_seconds * 1000)}, peak ${plan.peak_rate}/s</td></tr>
<tr><th><span class="label">Generator</span></th><td>${humanize(plan.mode)}, seed <code>${plan.seed}</code>; ${plan.shards} ${plan.shards === 1 ? "shard" : "shards"}, up to ${plan.max_in_flight} in flight each, dropped after ${plan.max_lateness_ms} ms late</td></tr>
${shares.length > 0 ? html`<tr><th><span class="label">Broken on purpose</span></th><td>${shares.join(", ")}</td></tr>` : ""}
${plan.thresholds.length > 0 ? html`<tr><th><span class="label">Thresholds</span></th><td>${plan.thresholds.map((t) => html`<code>${describeThreshold(t)}</code>${t.abort_on_fail ? ` (aborts after ${t.grace_seconds} s)` : ""} `)}</td></tr>` : ""}
<tr><th><span class="label">Started by</span></th><td>${run.operator}</td></tr>
</table>`;
}

/** Each load zone's figures beside the whole, for a run started with locations; nothing otherwise. */
export function locationsCard(run: RunDetail): Html {
  const zones = run.locations ?? [];
  if (zones.length === 0) return html``;
  const rows = zones.map(
    (zone) =>
      html`<tr><th>${zone.location}</th><td>${zone.shards}</td><td>${zone.sent}</td><td>${zone.accepted}</td><td>${zone.rejected}</td><td>${zone.errors}</td><td>${zone.dropped}</td><td>${latency(zone.latency_p50_ms)}</td><td>${latency(zone.latency_p99_ms)}</td></tr>`,
  );
  return html`<h2>By location</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Figures by location"><table class="figures" id="locations">
<tr><th>location</th><th>shards</th><th>answered</th><th>accepted</th><th>rejected</th><th>failed</th><th>dropped</th><th>p50</th><th>p99</th></tr>
${rows}
<tr><th>whole run</th><td>${run.plan.shards}</td><td>${run.sent}</td><td>${run.accepted}</td><td>${run.rejected}</td><td>${run.errors}</td><td>${run.dropped}</td><td>${latency(run.latency.p50_ms)}</td><td>${latency(run.latency.p99_ms)}</td></tr>
</table></div>`;
}
