import { html } from "hono/html";
import { type Html, layout } from "../../http/html-page";
import type { RunDetail } from "../../runs/run-schemas";
import { latency, span } from "../format";
import { idTag, pageHeader, type SignedIn, textTag, timeTag } from "../pages";
import { type Chart, runCharts } from "./run-chart";
import { drillCard, latencyTable, locationsCard, planCard, verdictCard } from "./run-sections";
import { runStatusLabel } from "./run-status-labels";

/** How often a live run's page reloads itself (no script: a meta refresh). */
const RUN_REFRESH_SECONDS = 2;

interface RunPageOptions extends SignedIn {
  readonly run: RunDetail;
  readonly now: Date;
}

/**
 * `final`, for a run that has ended, puts the run's own figures beside each
 * line's name instead of its last point's (the drain after the end, 0/s).
 */
function chartTag(
  chart: Chart,
  title: string,
  unit: (value: number) => string,
  final?: Readonly<Record<string, string>>,
): Html {
  const legend = chart.lines.map((line) => {
    const value = final?.[line.key] ?? (line.last === null ? null : unit(line.last));
    return html`<span class="nowrap" data-legend="${line.key}"><span class="key s-${line.key}"></span>${line.label}${value === null ? "" : html` <b>${value}</b>`}</span>`;
  });
  // The tick labels sit beside the drawing at the height of their gridline, as a share of it: the SVG stretches with
  // the page.
  const ticks = chart.ticks.map(
    (tick) => html`<span style="top:${Math.round((tick.y / chart.height) * 1000) / 10}%">${unit(tick.value)}</span>`,
  );
  return html`<div class="legend">${legend}</div>
<div class="plot"><div class="ticks" aria-hidden="true">${ticks}</div>
<svg class="chart" viewBox="0 0 ${chart.width} ${chart.height}" role="img" aria-label="${title}" preserveAspectRatio="none"><title>${title}</title>
${chart.ticks.map((tick) => html`<line class="grid" x1="0" x2="${chart.width}" y1="${tick.y}" y2="${tick.y}"/>`)}
${chart.lines.map((line) => html`<path class="line s-${line.key}" data-series="${line.key}" data-points="${line.points}" d="${line.d}"/>`)}
</svg></div>
<div class="axis"><span>0 s</span><span>${span(chart.xMax * 1000)}</span></div>`;
}

function stat(label: string, value: string, detail = ""): Html {
  return html`<div class="stat"><span class="muted">${label}</span> <b>${value}</b> ${detail ? html`<span class="muted">${detail}</span>` : ""}</div>`;
}

/** Why the run is not simply running or completed: paused, failed, aborted, interrupted, stopped. */
function condition(run: RunDetail, now: Date): Html {
  if (run.paused) {
    return html`<div class="card error" role="status" id="condition"><p>Paused ${timeTag(run.paused.since, now)}: the order API did not answer (${textTag(run.paused.reason)}). The run waits for it instead of flooding it with errors, and goes on when it answers again.</p></div>`;
  }
  if (!run.problem) return html``;
  const tone = run.status === "stopped" ? "" : "error";
  return html`<div class="card ${tone}" role="status" id="condition"><p>${runStatusLabel(run.status)}: ${textTag(run.problem)}</p></div>`;
}

/** What an ended run's legends say: its rates over the schedule's window, totals, and run-wide percentiles. */
function finalLegends(run: RunDetail): { rates: Record<string, string>; latency: Record<string, string> } {
  const bound = (field: "p50_ms" | "p99_ms") =>
    `${run.latency.lower_bounds.includes(field) ? "≥ " : ""}${latency(run.latency[field])}`;
  return {
    rates: {
      planned: `${run.planned_rate}/s`,
      answered: `${run.achieved_rate}/s`,
      rejected: `${run.rejected} in all`,
      dropped: `${run.dropped + run.errors} in all`,
      generator: `${run.generator.dropped} in all`,
    },
    latency: {
      p50: bound("p50_ms"),
      p99: bound("p99_ms"),
      "service-p99": latency(run.service.p99_ms),
      "generator-delay": latency(run.generator.delay_p99_ms),
    },
  };
}

function limitsCard(run: RunDetail): Html {
  if (run.limits.length === 0) return html``;
  return html`<div class="card warning" id="limits"><p><b>What limited this run</b></p><ul>${run.limits.map((limit) => html`<li>${textTag(limit)}</li>`)}</ul></div>`;
}

export function runPage(options: RunPageOptions): Html {
  const { run, now } = options;
  const live = run.status === "running";
  const { plan } = run;
  const { rates, latency: latencyChart } = runCharts(run.intervals, plan.duration_seconds);
  const percent = plan.total_orders === 0 ? 100 : Math.floor((run.sent / plan.total_orders) * 100);
  const badge = run.paused
    ? html`<span class="badge run-paused" id="status">Paused</span>`
    : html`<span class="badge run-${run.status}" id="status">${runStatusLabel(run.status)}</span>`;
  const codes = Object.entries(run.status_counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => html`<span class="nowrap">HTTP ${code}: ${n}</span>`);
  const ended = run.finished_at
    ? html`<span class="nowrap">ended ${timeTag(run.finished_at, now)}</span>`
    : html`<span class="nowrap">running for ${span(now.getTime() - Date.parse(run.started_at))}</span>`;
  const reasons = run.rejection_reasons.map((reason) => html`<li>${textTag(reason)}</li>`);
  const base = `/runs/${encodeURIComponent(run.run_id)}`;
  const rateUnit = (v: number) => `${v}/s`;
  const final = live ? undefined : finalLegends(run);
  return layout(
    `Run ${run.run_id}`,
    html`${pageHeader(options)}
<h1>Traffic run ${idTag(run.run_id)}</h1>
<div class="meta">${badge}<span class="nowrap">started ${timeTag(run.started_at, now)}</span>${ended}</div>
<p class="muted" id="live">${live ? `Live: this page refreshes every ${RUN_REFRESH_SECONDS} seconds.` : "This run has ended; the page no longer refreshes."}</p>
${verdictCard(run)}
${condition(run, now)}
<div class="card"><div class="stats">
${stat("Answered", String(run.sent), `of ${plan.total_orders} (${percent}%)`)}${stat("Accepted", String(run.accepted))}${stat("Rejected", String(run.rejected))}${stat("Failed", String(run.errors), "no answer")}${stat("Dropped", String(run.dropped), "not sent in time")}${live ? stat("Rate", `${run.current_rate}/s`, `planned ${run.planned_rate}/s`) : stat("Achieved rate", `${run.achieved_rate}/s`, `planned ${run.planned_rate}/s`)}${live ? stat("In flight", String(run.in_flight)) : ""}
</div>${codes.length > 0 ? html`<div class="meta muted">${codes}</div>` : ""}</div>
${limitsCard(run)}
<h2>Latency</h2>
<div class="card" id="latency-table">${latencyTable(run)}</div>
<h2>Orders per second</h2>
<div class="card" id="counts-chart">${chartTag(rates, "Planned rate against orders answered, rejected, and dropped or failed, per second", rateUnit, final?.rates)}${run.intervals.length === 0 ? html`<p class="muted">No order has been answered yet.</p>` : ""}</div>
<h2>Latency per second</h2>
<div class="card" id="latency-chart">${chartTag(latencyChart, "Median and 99th percentile latency from the scheduled send time, the 99th percentile service time, and the generator's own delay, per second", latency, final?.latency)}</div>
${locationsCard(run)}
${drillCard(run)}
<h2>Plan</h2>
<div class="card">${planCard(run)}</div>
<h2>Rejection reasons</h2>
<div class="card">${reasons.length > 0 ? html`<ul>${reasons}</ul>` : html`<p>None${live ? " so far" : ""}.</p>`}</div>
<h2>Export</h2>
<div class="card" id="export"><p><a href="${base}/export.json">The whole result as JSON</a> (summary and run-wide histograms) · <a href="${base}/intervals.csv">Every interval as CSV</a></p></div>`,
    live ? { refreshSeconds: RUN_REFRESH_SECONDS } : {},
  );
}
