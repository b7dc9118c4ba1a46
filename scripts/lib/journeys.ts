/**
 * The two journeys an agent is asked for most, as the bytes of text content
 * it reads on each (issue 55): the ops loop, from the exception queue to the
 * audit log, and a load test, started, polled and read once ended. The same
 * steps serve the budget test (test/mcp/journey-budget.test.ts, over the
 * Worker in-process) and `npm run bench` (over `wrangler dev`); each side
 * says how a tool is called and how a person approves.
 */

export const OPS_LOOP_BUDGET = 16_000;
export const LOAD_TEST_BUDGET = 12_000;

export interface ToolAnswer {
  /** The text content, every block, as the model reads it. */
  readonly text: string;
  readonly structured: Record<string, unknown>;
}

export interface JourneyPort {
  /** A tool call that must succeed. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  /** A person approves the proposal in the approval application, as many people as it needs. */
  approve(proposalId: string, approvalsRequired: number): Promise<void>;
}

export interface JourneyStep {
  readonly step: string;
  readonly bytes: number;
}

const utf8 = new TextEncoder();

function journey(port: JourneyPort) {
  const steps: JourneyStep[] = [];
  return {
    steps,
    async call(step: string, name: string, args: Record<string, unknown> = {}) {
      const answer = await port.call(name, args);
      steps.push({ step, bytes: utf8.encode(answer.text).byteLength });
      return answer.structured;
    },
  };
}

function expectThat(condition: boolean, what: string): void {
  if (!condition) throw new Error(`journey: ${what}`);
}

export const totalBytes = (steps: readonly JourneyStep[]): number => steps.reduce((sum, s) => sum + s.bytes, 0);

/** List exceptions, the top one's details, propose, confirm before approval, wait, confirm after, audit log. */
export async function opsLoop(port: JourneyPort): Promise<JourneyStep[]> {
  const j = journey(port);
  const queue = (await j.call("list exceptions", "list_order_exceptions")) as { exceptions?: { order_id: string }[] };
  const orderId = queue.exceptions?.[0]?.order_id;
  expectThat(orderId !== undefined, "the exception queue is empty");
  await j.call("details of the top one", "get_order_details", { order_id: orderId });
  const proposal = (await j.call("propose", "propose_resolution", { order_id: orderId })) as {
    proposal_id: string;
    approvals_required: number;
  };
  const before = await j.call("confirm before approval", "confirm_resolution", { proposal_id: proposal.proposal_id });
  expectThat(before.status === "approval_required", `confirming before approval answered ${String(before.status)}`);
  await port.approve(proposal.proposal_id, proposal.approvals_required);
  const waited = await j.call("wait", "wait_for_approval", { proposal_id: proposal.proposal_id, timeout_seconds: 1 });
  expectThat(waited.decided === true, "wait_for_approval did not see the decision");
  const after = await j.call("confirm after approval", "confirm_resolution", { proposal_id: proposal.proposal_id });
  expectThat(after.status === "applied", `confirming after approval answered ${String(after.status)}`);
  await j.call("audit log", "get_order_audit_log", { order_id: orderId });
  return j.steps;
}

/**
 * Start a minute's run, poll it five times while it runs, and read it once ended. It is ended by a stop rather
 * than by waiting out its minute; the model reads the stop's answer too.
 */
export async function loadTest(port: JourneyPort): Promise<JourneyStep[]> {
  const j = journey(port);
  const started = await j.call("start", "start_traffic_run", {
    rate_per_second: 2,
    duration_seconds: 60,
    thresholds: [
      { metric: "p99_ms", op: "<", value: 300 },
      { metric: "error_rate", op: "<", value: 0.01 },
    ],
  });
  for (let poll = 1; poll <= 5; poll++) {
    const run = await j.call(`poll ${poll}`, "get_traffic_run", { run_id: started.run_id });
    expectThat(run.status === "running", `poll ${poll} found the run ${String(run.status)}`);
  }
  await j.call("stop", "stop_traffic_run", { run_id: started.run_id });
  const ended = await j.call("the ended run", "get_traffic_run", { run_id: started.run_id });
  expectThat(ended.status === "stopped", `the stopped run reads ${String(ended.status)}`);
  return j.steps;
}

/** One line per journey: its total against its budget, then each step's bytes. */
export function describeJourney(label: string, steps: readonly JourneyStep[], budget: number): string {
  const total = totalBytes(steps);
  const each = steps.map((s) => `${s.step} ${s.bytes}`).join(", ");
  return `  ${label}: ${total} bytes of text   goal <= ${budget} ${total <= budget ? "met" : "NOT met"}\n    ${each}`;
}
