/**
 * The workflows people run with this server, as MCP prompts: a host shows
 * each as a slash command, fills in its arguments and hands the text to the
 * model. Each text names the tools to call, in order, and what to report;
 * none of them lets the model approve anything.
 */
import { z } from "zod/v4";
import { ADDRESS_KIND, PLAYBOOK_KIND } from "../orders/change-kinds";
import { type AccountPrompt, definePrompt } from "./prompt-registration";
import { OrderIdParam } from "./tools/params";

/** A whole number given as a prompt argument (prompt arguments are strings). */
function wholeNumber(description: string) {
  return z
    .string()
    .trim()
    .regex(/^[1-9]\d{0,5}$/, "give a whole number, such as 5")
    .optional()
    .describe(description);
}

/** A decimal number given as a prompt argument, such as an order rate of 2.5. */
function positiveNumber(description: string) {
  const wanted = "give a number above 0, such as 20 or 2.5";
  return (
    z
      .string({ error: wanted })
      .trim()
      // Some digit other than 0, so the number is above 0.
      .regex(/^(?=[\d.]*[1-9])(?:\d{1,6}(?:\.\d+)?|\.\d+)$/, wanted)
      .describe(description)
  );
}

/** The numbered steps of a prompt's text, after its first line. */
function steps(heading: string, items: readonly string[], closing = ""): string {
  return [heading, ...items.map((item, i) => `${i + 1}. ${item}`), ...(closing ? [closing] : [])].join("\n");
}

const triageExceptions = definePrompt({
  name: "triage_exceptions",
  title: "Triage the exception queue",
  description:
    "Lists this account's stuck orders, most urgent first, looks into the top few and reports what is wrong with each and what fix to consider. Changes nothing.",
  args: z.object({ top: wholeNumber("How many of the most urgent orders to look into (default 3)") }),
  tools: ["list_order_exceptions", "get_order_details"],
  text: ({ top }) =>
    steps(
      "Triage this account's order exception queue.",
      [
        "Call list_order_exceptions. It lists the stuck orders most urgent first (priority, then age), each with its type, team, age, SLA breach and value.",
        `For each of the first ${top ?? "3"} orders, call get_order_details and read its payment attempts, inventory allocations, fulfillment, duplicate signals and timeline.`,
        "Report one line per order: its id, what is wrong in plain words, how long it has been open and whether its SLA is breached, and the evidence that matters most.",
      ],
      "Do not propose or change anything: ask me which orders to fix.",
    ),
});

const explainOrder = definePrompt({
  name: "explain_order",
  title: "Explain one order",
  description:
    "Reads one order's details and audit log and explains in plain words what state it is in, what went wrong and the evidence. Changes nothing.",
  args: z.object({ order_id: OrderIdParam }),
  tools: ["get_order_details", "get_order_audit_log"],
  text: ({ order_id }) =>
    steps(
      `Explain order ${order_id} to me.`,
      [
        `Call get_order_details with order_id "${order_id}": payment attempts, inventory allocations, fulfillment, duplicate signals, customer and timeline.`,
        `Call get_order_audit_log with order_id "${order_id}" to see who changed the order, when and why.`,
        "Explain what state the order is in, what went wrong and the evidence for it, and what has been done about it so far. Quote ids, amounts and times exactly.",
      ],
      "Do not propose a change unless I ask for one.",
    ),
});

/** The kinds propose_and_wait proposes: the playbook's fix, or a new address when one is given. */
const PROPOSED_HERE = [PLAYBOOK_KIND, ADDRESS_KIND];

const proposeAndWait = definePrompt({
  name: "propose_and_wait",
  title: "Propose a fix and wait for approval",
  description:
    "Proposes the playbook's fix for one order (or a new shipping address), hands you the approval link and waits; after a person has approved it in the approval app, applies it once and shows the audit trail.",
  args: z.object({
    order_id: OrderIdParam,
    new_address: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe("A new shipping address in one line, to propose an address change instead of the playbook's fix"),
  }),
  tools: [
    "get_order_details",
    ...PROPOSED_HERE.map((kind) => kind.proposeTool.name),
    "wait_for_approval",
    ...new Set(PROPOSED_HERE.map((kind) => kind.applyTool.name)),
    "get_order_audit_log",
  ],
  text: ({ order_id, new_address }) => {
    const { proposeTool, applyTool } = new_address ? ADDRESS_KIND : PLAYBOOK_KIND;
    const propose = new_address
      ? `Call ${proposeTool.name} with order_id "${order_id}" and this address, split into recipient, line1, line2, city, region, postal_code and country: ${new_address}. The server validates and normalizes it.`
      : `Call ${proposeTool.name} with order_id "${order_id}". The server picks the action from its playbook.`;
    const apply = applyTool.name;
    return steps(`Propose a fix for order ${order_id} and wait for a person to approve it.`, [
      `Call get_order_details with order_id "${order_id}" and tell me in two sentences what is wrong.`,
      `${propose} A proposal changes nothing by itself.`,
      "Give me the proposal's approval_url, its risk and when it expires. You cannot approve it: a person approves or rejects it in the approval app.",
      "Call wait_for_approval with the proposal_id, and again while decided is false, telling me each time that it still waits.",
      `Once it is decided: only if its status is approved, call ${apply} once and report the outcome. If it was rejected, expired, went stale or was replaced, say why and change nothing.`,
      `Call get_order_audit_log with order_id "${order_id}" and show me this proposal's events.`,
    ]);
  },
});

const loadTest = definePrompt({
  name: "load_test",
  title: "Load-test the order API",
  description:
    "Runs a sustained traffic run at the configured order API with a latency threshold, watches it until it ends and reports its verdict: passed, failed or inconclusive, and against which threshold.",
  args: z.object({
    rate_per_second: positiveNumber("Orders per second once the ramp is over, such as 20"),
    duration_seconds: wholeNumber("How long the run lasts in seconds, ramp included (default 60)"),
    p99_ms: wholeNumber("The run fails if its p99 latency is over this many milliseconds (default 500)"),
    ramp_seconds: wholeNumber("Seconds over which the rate climbs from 0 (default: no ramp)"),
  }),
  tools: ["check_target", "start_traffic_run", "get_traffic_run", "stop_traffic_run"],
  text: ({ rate_per_second, duration_seconds, p99_ms, ramp_seconds }, config) =>
    steps("Run a load test against the configured order API and give me its verdict.", [
      "Call check_target. If the target is not reachable, stop and tell me why.",
      `Call start_traffic_run with rate_per_second ${rate_per_second}, duration_seconds ${duration_seconds ?? "60"}${ramp_seconds ? `, ramp_seconds ${ramp_seconds}` : ""}, mode "seeded", and thresholds that fail the run if its p99 latency is over ${p99_ms ?? "500"} ms. This server allows at most ${config.runs.maxRate} orders per second and ${config.runs.maxSeconds} seconds; if the run is refused, tell me what to change. Give me its run_id, seed, total_orders and run_url (a live chart).`,
      "Call get_traffic_run with the run_id every few seconds until its status is no longer running. If it pauses because the target stopped answering, tell me; call stop_traffic_run only if I ask you to stop.",
      "Report the run's verdict: passed, failed, or inconclusive when the generator itself was the limit (say what it suggests changing), and which threshold it failed against; a latency figure listed in latency.lower_bounds is only a lower bound. Add the orders sent, accepted and rejected, the latency it measured, the first rejection reasons, and the seed that replays exactly the same orders.",
    ]),
});

const capacitySearch = definePrompt({
  name: "capacity_search",
  title: "Find how much the order API can take",
  description:
    "Searches for the highest rate at which the configured order API still meets a latency objective (start_capacity_search), watches the steps until it ends and reports the answer: the rate it holds, what broke above it, or that the generator was the limit.",
  args: z.object({
    p99_ms: wholeNumber("The objective: p99 latency under this many milliseconds (default 300)"),
    lowest_rate: positiveNumber("The first step's rate, orders per second (default 10)").optional(),
    highest_rate: positiveNumber("No step goes above this rate (default: this server's MAX_RUN_RATE)").optional(),
    step_seconds: wholeNumber("How long each step sends, in seconds (default 10)"),
  }),
  tools: ["check_target", "start_capacity_search", "get_capacity_search", "stop_capacity_search"],
  text: ({ p99_ms, lowest_rate, highest_rate, step_seconds }, config) =>
    steps(
      `Find how many orders a second the configured order API can take with p99 latency under ${p99_ms ?? "300"} ms.`,
      [
        "Call check_target. If the target is not reachable, stop and tell me why.",
        `Call start_capacity_search with objective [{"metric": "p99_ms", "op": "<", "value": ${p99_ms ?? "300"}}, {"metric": "error_rate", "op": "<", "value": 0.01}], lowest_rate ${lowest_rate ?? "10"}, highest_rate ${highest_rate ?? config.runs.maxRate} (this server allows at most ${config.runs.maxRate}, MAX_RUN_RATE), step_seconds ${step_seconds ?? "10"} and mode "seeded". If it is refused, tell me what to change. Give me its search_id and search_url (a live chart of latency against rate).`,
        "Call get_capacity_search with the search_id every 10 seconds or so until its status is no longer running, telling me briefly each step's rate and verdict as it ends. Each step is a short traffic run, with a short pause between them. Call stop_capacity_search only if I ask you to stop.",
        "Report its answer sentence as it stands, then highest_passing_rate and lowest_failing_rate with the tolerance, and broke_first. If outcome is above_cap, say the knee is above the highest rate tried, not that one was found. If the status is inconclusive, say the load generator, not the API, was the limit. Whenever advice is set, repeat it: it names the setting or the call to change, with a value. A p99 listed in a step's lower_bounds is only a lower bound.",
      ],
    ),
});

const rejectionDrill = definePrompt({
  name: "rejection_drill",
  title: "Drill the rejection path",
  description:
    "Sends synthetic orders the order API must refuse (simple mode), checks that every one is rejected with 422 and a readable reason, and replays the batch by its seed to show the same rejections.",
  args: z.object({ count: wholeNumber("How many orders to send (default 5)") }),
  tools: ["check_target", "preview_order", "send_orders"],
  text: ({ count }, config) =>
    steps(
      "Drill the order API's rejection path with orders it must refuse.",
      [
        "Call check_target. If the target is not reachable, stop and tell me why.",
        'Call preview_order with mode "simple" and tell me what in that invented order the API should refuse.',
        `Call send_orders with count ${count ?? "5"} (at most ${config.maxBatch}, this server's MAX_BATCH) and mode "simple". Report the status counts and the sample failures with their reasons.`,
        "Call send_orders again with the same count, mode and the seed it reported, and check that the replay is rejected the same way.",
      ],
      "If any order was accepted, or any answer was not 422, say so first: the rejection path is broken.",
    ),
});

/** Every prompt this server offers, in the order hosts list them. */
export const workflowPrompts: readonly AccountPrompt[] = [
  triageExceptions,
  explainOrder,
  proposeAndWait,
  loadTest,
  capacitySearch,
  rejectionDrill,
];
