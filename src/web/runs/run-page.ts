import { html } from "hono/html";
import type { RunDetail } from "../../synth/run-schemas";
import { latency, span } from "../format";
import { humanize } from "../../orders/labels";
import { runStatusLabel } from "./run-status-labels";
import { layout, type Html } from "../../http/html-page";
import { idTag, pageHeader, textTag, timeTag, type SignedIn } from "../pages";
import { averageRate, runCharts, type Chart } from "./run-chart";

/** How often a live run's page reloads itself (no script: a meta refresh). */
const RUN_REFRESH_SECONDS = 2;

interface RunPageOptions extends SignedIn {
  readonly run: RunDetail;
  readonly now: Date;
}

function chartTag(chart: Chart, title: string, unit: (value: number) => string): Html {
  const legend = chart.lines.map((line) => html`<span class="nowrap"><span class="key s-${line.key}"></span>${line.label}</span>`);
  return html`<div class="legend">${legend}</div>
<div class="axis"><span>${unit(chart.yMax)}</span></div>
<svg class="chart" viewBox="0 0 ${chart.width} ${chart.height}" role="img" aria-label="${title}" preserveAspectRatio="none"><title>${title}</title>
${chart.gridYs.map((y) => html`<line class="grid" x1="0" x2="${chart.width}" y1="${y}" y2="${y}"/>`)}
${chart.lines.map((line) => html`<path class="line s-${line.key}" data-series="${line.key}" data-points="${line.points}" d="${line.d}"/>`)}
</svg>
<div class="axis"><span>0 s</span><span>${span(chart.xMax * 1000)}</span></div>`;
}

function stat(label: string, value: string, detail = ""): Html {
  return html`<div class="stat"><span class="muted">${label}</span> <b>${value}</b> ${detail ? html`<span class="muted">${detail}</span>` : ""}</div>`;
}

/** Why the run is not simply running or completed: paused, failed, interrupted, stopped. */
function condition(run: RunDetail, now: Date): Html {
  if (run.paused) {
    return html`<div class="card error" role="status" id="condition"><p>Paused ${timeTag(run.paused.since, now)}: the order API did not answer (${textTag(run.paused.reason)}). The run waits for it instead of flooding it with errors, and goes on when it answers again.</p></div>`;
  }
  if (!run.problem) return html``;
  const tone = run.status === "stopped" ? "" : "error";
  return html`<div class="card ${tone}" role="status" id="condition"><p>${runStatusLabel(run.status)}: ${textTag(run.problem)}</p></div>`;
}

export function runPage(options: RunPageOptions): Html {
  const { run, now } = options;
  const live = run.status === "running";
  const { plan } = run;
  const { counts, latency: latencyChart } = runCharts(run.intervals, plan.duration_seconds);
  const percent = plan.total_orders === 0 ? 100 : Math.floor((run.sent / plan.total_orders) * 100);
  const badge = run.paused ? html`<span class="badge run-paused" id="status">Paused</span>` : html`<span class="badge run-${run.status}" id="status">${runStatusLabel(run.status)}</span>`;
  const codes = Object.entries(run.status_counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => html`<span class="nowrap">HTTP ${code}: ${n}</span>`);
  const ended = run.finished_at
    ? html`<span class="nowrap">ended ${timeTag(run.finished_at, now)}</span>`
    : html`<span class="nowrap">running for ${span(now.getTime() - Date.parse(run.started_at))}</span>`;
  const reasons = run.rejection_reasons.map((reason) => html`<li>${textTag(reason)}</li>`);
  return layout(
    `Run ${run.run_id}`,
    html`${pageHeader(options)}
<h1>Traffic run ${idTag(run.run_id)}</h1>
<div class="meta">${badge}<span class="nowrap">started ${timeTag(run.started_at, now)}</span>${ended}</div>
<p class="muted" id="live">${live ? `Live: this page refreshes every ${RUN_REFRESH_SECONDS} seconds.` : "This run has ended; the page no longer refreshes."}</p>
${condition(run, now)}
<div class="card"><div class="stats">
${stat("Sent", String(run.sent), `of ${plan.total_orders} (${percent}%)`)}${stat("Accepted", String(run.accepted))}${stat("Rejected", String(run.rejected))}${live ? stat("Current rate", `${run.current_rate}/s`) : stat("Average rate", `${averageRate(run)}/s`)}
</div>${codes.length > 0 ? html`<div class="meta muted">${codes}</div>` : ""}</div>
<h2>Orders per second</h2>
<div class="card" id="counts-chart">${chartTag(counts, "Orders sent, accepted and rejected per second", (v) => `${v} orders/s`)}${run.intervals.length === 0 ? html`<p class="muted">No order has been answered yet.</p>` : ""}</div>
<h2>Target latency</h2>
<div class="card" id="latency-chart">${chartTag(latencyChart, "The target's median and 95th percentile answer time per second", latency)}</div>
<h2>Plan</h2>
<div class="card"><table>
<tr><th><span class="label">Rate</span></th><td>${plan.rate_per_second} orders/s${plan.ramp_seconds > 0 ? `, reached after a ${span(plan.ramp_seconds * 1000)} ramp` : ""}</td></tr>
<tr><th><span class="label">Duration</span></th><td>${span(plan.duration_seconds * 1000)}: ${plan.total_orders} orders</td></tr>
<tr><th><span class="label">Generator</span></th><td>${humanize(plan.mode)}, seed <code>${plan.seed}</code></td></tr>
<tr><th><span class="label">Started by</span></th><td>${run.operator}</td></tr>
</table></div>
<h2>Rejection reasons</h2>
<div class="card">${reasons.length > 0 ? html`<ul>${reasons}</ul>` : html`<p>None${live ? " so far" : ""}.</p>`}</div>`,
    live ? { refreshSeconds: RUN_REFRESH_SECONDS } : {},
  );
}
