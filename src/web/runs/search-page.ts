/**
 * A capacity search's page (/runs/searches/<search_id>): the answer, latency
 * against rate with the objective and the knee, and every step with a link
 * to its own run page. It reloads itself while the search runs, as the run
 * page does.
 */
import { html } from "hono/html";
import { type Html, layout } from "../../http/html-page";
import { searchReading } from "../../runs/capacity-answer";
import type { CapacitySearch, SearchStatus, SearchStep } from "../../runs/capacity-schemas";
import { describeThreshold } from "../../runs/verdict";
import { latency, span } from "../format";
import { idTag, pageHeader, type SignedIn, textTag, timeTag } from "../pages";
import { type SearchChart, searchChart } from "./search-chart";

const SEARCH_REFRESH_SECONDS = 2;

const STATUS: Readonly<Record<SearchStatus, { label: string; badge: string }>> = {
  running: { label: "Running", badge: "run-running" },
  completed: { label: "Completed", badge: "run-completed" },
  inconclusive: { label: "Inconclusive", badge: "run-paused" },
  stopped: { label: "Stopped", badge: "" },
  failed: { label: "Failed", badge: "run-failed" },
};

const P50 = "#6d28d9";
const P99 = "#9f1239";

function chartTag(chart: SearchChart): Html {
  const ticks = chart.ticks.map(
    (tick) => html`<span style="top:${Math.round((tick.y / chart.height) * 1000) / 10}%">${latency(tick.value)}</span>`,
  );
  const knee = chart.knee
    ? html`<rect data-knee x="${chart.knee.x1}" y="0" width="${Math.max(1, chart.knee.x2 - chart.knee.x1)}" height="${chart.height}" fill="#fff1d6"><title>${chart.knee.label}</title></rect>
<path class="line" stroke="#1d7a35" d="M${chart.knee.x1} 0 V${chart.height}"/>`
    : "";
  const points = chart.series.flatMap((series) =>
    series.points.map(
      (point) =>
        html`<path class="line s-${series.key}" data-point="${series.key}" data-at-least="${String(point.atLeast)}" style="stroke-width:9;stroke-opacity:${point.atLeast ? 0.45 : 1}" d="M${point.x} ${point.y} h0.01"><title>${series.label} at ${point.rate}/s: ${point.atLeast ? "≥ " : ""}${latency(point.ms)} (${point.verdict})</title></path>${point.atLeast ? html`<path class="line s-${series.key}" stroke-dasharray="2 4" d="M${point.x} ${point.y} V0"/>` : ""}`,
    ),
  );
  return html`<div class="legend"><span class="nowrap"><span class="key s-p50"></span>p50</span><span class="nowrap"><span class="key s-p99"></span>p99</span><span class="nowrap"><span class="key" style="background:#b42318"></span>objective</span><span class="nowrap"><span class="key" style="background:#fff1d6;height:10px"></span>knee <b>${chart.kneeWords}</b></span></div>
<div class="plot"><div class="ticks" aria-hidden="true">${ticks}</div>
<svg class="chart" viewBox="0 0 ${chart.width} ${chart.height}" role="img" aria-label="Median and 99th percentile latency from the scheduled send time against the rate of each step, with the objective and the knee" preserveAspectRatio="none"><title>Latency against rate, one point per step</title>
${knee}
${chart.ticks.map((tick) => html`<line class="grid" x1="0" x2="${chart.width}" y1="${tick.y}" y2="${tick.y}"/>`)}
${chart.objective.map((line) => html`<path class="line" data-objective="${line.label}" stroke="#b42318" stroke-dasharray="6 4" d="M0 ${line.y} H${chart.width}"><title>${line.label}</title></path>`)}
${chart.series.map((series) => html`<path class="line s-${series.key}" data-series="${series.key}" data-points="${series.points.length}" stroke="${series.key === "p50" ? P50 : P99}" d="${series.d}"/>`)}
${points}
</svg></div>
<div class="axis"><span>0/s</span><span>orders per second</span><span>${chart.xMax}/s</span></div>`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

function stepRow(step: SearchStep, index: number): Html {
  const label = (field: "p50_ms" | "p99_ms") => field.replace("_ms", "");
  const figure = (field: "p50_ms" | "p99_ms") =>
    step.lower_bounds.includes(field)
      ? html`<td data-label="${label(field)}" data-at-least title="a lower bound: orders were dropped">≥ ${latency(step[field])}</td>`
      : html`<td data-label="${label(field)}">${latency(step[field])}</td>`;
  const verdict =
    step.verdict ?? (step.status === "running" ? "running" : step.phase === "warm-up" ? "not judged" : step.status);
  // Each cell names its column too: on a phone a row stacks its cells, each with its label (html-page.ts).
  return html`<tr data-step="${index + 1}"><td data-label="step">${index + 1}</td><td>${step.phase}</td><td data-label="rate">${step.rate_per_second}/s</td><td data-label="for">${span(step.duration_seconds * 1000)}</td>${figure("p50_ms")}${figure("p99_ms")}<td data-label="errors">${percent(step.error_rate)}</td><td data-label="dropped">${percent(step.dropped_rate)}</td><td class="verdict" data-label="verdict">${verdict}</td><td data-label="run"><a href="/runs/${encodeURIComponent(step.run_id)}">${idTag(step.run_id)}</a></td></tr>`;
}

function stat(label: string, value: string): Html {
  return html`<div class="stat"><span class="muted">${label}</span> <b>${value}</b></div>`;
}

export function searchPage(options: SignedIn & { readonly search: CapacitySearch; readonly now: Date }): Html {
  const { search, now } = options;
  const { plan } = search;
  const live = search.status === "running";
  const status = STATUS[search.status];
  const ended = search.finished_at
    ? html`<span class="nowrap">ended ${timeTag(search.finished_at, now)}</span>`
    : html`<span class="nowrap">running for ${span(now.getTime() - Date.parse(search.started_at))}</span>`;
  const next = search.next_step
    ? html`<p class="muted" id="next">Next: ${search.next_step.phase} at ${search.next_step.rate_per_second}/s, ${timeTag(search.next_step.at, now)} (a ${plan.pause_seconds} s pause lets the target go quiet first).</p>`
    : "";
  // Tiles from the same reading as the answer's sentence: they cannot disagree with it.
  const { tiles } = searchReading(search);
  // The sentence says a search failed and why, or was inconclusive and why; only who stopped one is not in it.
  const stoppedBy =
    search.status === "stopped" && search.problem
      ? html`<p class="muted">${textTag(capitalised(search.problem))}.</p>`
      : "";
  return layout(
    `Capacity search ${search.search_id}`,
    html`${pageHeader(options)}
<h1>Capacity search ${idTag(search.search_id)}</h1>
<div class="meta"><span class="badge ${status.badge}" id="status">${status.label}</span><span class="nowrap">started ${timeTag(search.started_at, now)}</span>${ended}</div>
<p class="muted" id="live">${live ? `Live: this page refreshes every ${SEARCH_REFRESH_SECONDS} seconds.` : "This search has ended; the page no longer refreshes."}</p>
<div class="card ${search.status === "completed" ? "verdict-passed" : search.status === "running" ? "" : "verdict-inconclusive"}" id="answer" role="status"><p><b>${textTag(search.answer)}</b></p>${search.advice ? html`<p id="advice">${textTag(search.advice)}</p>` : ""}${stoppedBy}${next}</div>
<div class="card"><div class="stats">${stat(tiles.holdsLabel, tiles.holds)}${stat("Fails at", tiles.fails)}${stat("Tolerance", percent(search.tolerance))}${stat("Broke first", tiles.brokeFirst)}</div></div>
<h2>Latency against rate</h2>
<div class="card" id="search-chart">${chartTag(searchChart(search))}<p class="muted">One point per judged step: latency from each order's scheduled send time, so queueing counts. A faint point with a dotted line up is only a lower bound (orders were dropped). The dashed red line is the objective; the shaded band is where the knee lies.</p></div>
<h2>Steps</h2>
<div class="card"><div class="scroll" tabindex="0" role="region" aria-label="Steps"><table class="figures" id="steps">
<tr><th>#</th><th>phase</th><th>rate</th><th>for</th><th>p50</th><th>p99</th><th>errors</th><th>dropped</th><th>verdict</th><th>run</th></tr>
${search.steps.map(stepRow)}
</table></div></div>
<h2>Plan</h2>
<div class="card"><table>
<tr><th><span class="label">Objective</span></th><td>${plan.objective.map((t) => html`<code>${describeThreshold(t)}</code> `)}</td></tr>
<tr><th><span class="label">Rates</span></th><td>${plan.lowest_rate}/s to ${plan.highest_rate}/s, narrowed to ${percent(plan.tolerance)}</td></tr>
<tr><th><span class="label">Steps</span></th><td>${span(plan.step_seconds * 1000)} each, the confirming one ${span(plan.confirm_seconds * 1000)}, ${plan.pause_seconds} s quiet between${plan.warmup_seconds > 0 ? `, after a ${plan.warmup_seconds} s warm-up` : ""}; at most ${plan.max_steps}</td></tr>
<tr><th><span class="label">Generator</span></th><td>${plan.mode}, seed <code>${plan.seed}</code> (step i: seed + i)</td></tr>
<tr><th><span class="label">Started by</span></th><td>${search.operator}</td></tr>
</table></div>`,
    live ? { refreshSeconds: SEARCH_REFRESH_SECONDS } : {},
  );
}
