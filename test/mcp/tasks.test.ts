import { describe, expect, it } from "vitest";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { type JsonRpcMessage, jsonAnswer, modernHeaders, modernRpc, postMcp } from "../helpers/mcp-raw";
import { approve } from "../helpers/ops";
import { freshSeed } from "../helpers/synthetic";
import { ACME_ADMIN_TOKEN, ACME_TOKEN, GLOBEX_TOKEN } from "../helpers/tokens";

// MCP tasks (io.modelcontextprotocol/tasks, 2026-07-28) on the wire: only a request
// that declares the extension gets a task; every other client gets today's
// answer; the task is the starter's alone; cancel stops the run.

const TASKS = "io.modelcontextprotocol/tasks";
const OPT_IN = {
  _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } },
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let ids = 0;
async function call(
  method: string,
  params: Record<string, unknown>,
  { token = ACME_TOKEN, optIn = true, name }: { token?: string; optIn?: boolean; name?: string } = {},
): Promise<JsonRpcMessage> {
  const body = modernRpc(++ids, method, optIn ? { ...params, ...OPT_IN } : params);
  return jsonAnswer(await postMcp(body, { token, headers: modernHeaders(method, name) }));
}

const tool = (name: string, args: Record<string, unknown>, options: { token?: string; optIn?: boolean } = {}) =>
  call("tools/call", { name, arguments: args }, { ...options, name });
const task = (method: string, taskId: string, options: { token?: string; optIn?: boolean } = {}) =>
  call(method, { taskId }, { ...options, name: taskId });

const longRun = () => ({ rate_per_second: 1, duration_seconds: 600, mode: "seeded", seed: freshSeed() });

async function stopAll(): Promise<void> {
  const runs = await call("resources/read", { uri: "synthetic://runs" }, { optIn: false, name: "synthetic://runs" });
  const text = ((runs.result?.contents ?? []) as { text: string }[])[0]?.text ?? "{}";
  for (const run of (JSON.parse(text) as { runs: { run_id: string; status: string }[] }).runs)
    if (run.status === "running") await tool("stop_traffic_run", { run_id: run.run_id }, { optIn: false });
}

describe("tasks, negotiated", () => {
  it("are declared, and the long tools say so in their listing", async () => {
    const discover = await call("server/discover", {}, { optIn: false });
    expect(discover.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    const list = await call("tools/list", {}, { optIn: false });
    const tools = list.result?.tools as { name: string; _meta?: Record<string, unknown> }[];
    const meta = (name: string) => tools.find((t) => t.name === name)?._meta?.[TASKS];
    expect(meta("start_traffic_run")).toEqual({ taskSupport: "optional" });
    expect(meta("start_capacity_search")).toEqual({ taskSupport: "optional" });
    expect(meta("wait_for_approval")).toEqual({ taskSupport: "optional" });
    expect(meta("get_traffic_run")).toBeUndefined();
  });

  it("a client that did not declare them gets today's answer, and tasks/* refused with -32021", async () => {
    await stopAll();
    const started = await tool("start_traffic_run", longRun(), { optIn: false });
    expect(started.result).toMatchObject({ resultType: "complete", structuredContent: { status: "running" } });
    expect(started.result).not.toHaveProperty("taskId");
    const runId = ((started.result?.structuredContent ?? {}) as { run_id?: string }).run_id;
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      const refused = await task(method, "whatever", { optIn: false });
      expect(refused.error?.code).toBe(-32021);
    }
    await tool("stop_traffic_run", { run_id: runId }, { optIn: false });
  });
});

describe("a traffic run as a task", () => {
  it("answers a CreateTaskResult; tasks/get says working, then inlines get_traffic_run's answer once it ended", async () => {
    await stopAll();
    const created = await tool("start_traffic_run", longRun());
    const result = created.result ?? {};
    expect(result).toMatchObject({ resultType: "task", status: "working", ttlMs: 86_400_000, pollIntervalMs: 2000 });
    expect(result.taskId).toMatch(UUID);
    expect(result.statusMessage).toMatch(/^traffic run R-\S+ is running: 0 of 600 orders answered so far$/);
    expect(result).not.toHaveProperty("task");
    const taskId = result.taskId as string;

    const working = await task("tasks/get", taskId);
    expect(working.result).toMatchObject({ resultType: "complete", taskId, status: "working" });
    expect(working.result).not.toHaveProperty("result");
    const runId = /traffic run (\S+) is running/.exec(String(working.result?.statusMessage))?.[1] ?? "";

    // The polling tool still works beside the task, for every client.
    await tool("stop_traffic_run", { run_id: runId }, { optIn: false });
    const done = await task("tasks/get", taskId);
    const polled = await tool("get_traffic_run", { run_id: runId }, { optIn: false });
    expect(done.result).toMatchObject({ taskId, status: "completed" });
    const inlined = done.result?.result as { structuredContent: Record<string, unknown> };
    expect(inlined.structuredContent).toEqual(polled.result?.structuredContent);
    expect(inlined.structuredContent.status).toBe("stopped");
  });

  it("tasks/cancel stops the run and acks empty; the task reads cancelled; a second cancel acks the same", async () => {
    await stopAll();
    const taskId = (await tool("start_traffic_run", longRun())).result?.taskId as string;
    const ack = await task("tasks/cancel", taskId);
    expect(ack.result).toEqual(expect.objectContaining({ resultType: "complete" }));
    expect(Object.keys(ack.result ?? {}).filter((key) => key !== "_meta")).toEqual(["resultType"]);
    const cancelled = await task("tasks/get", taskId);
    expect(cancelled.result).toMatchObject({ status: "cancelled" });
    expect((await task("tasks/cancel", taskId)).result).toMatchObject({ resultType: "complete" });
  });

  it("is the starter's alone: another credential, another account and a made-up id all read -32602 alike", async () => {
    await stopAll();
    const taskId = (await tool("start_traffic_run", longRun())).result?.taskId as string;
    const made = await task("tasks/get", crypto.randomUUID());
    const otherCredential = await task("tasks/get", taskId, { token: ACME_ADMIN_TOKEN });
    const otherAccount = await task("tasks/get", taskId, { token: GLOBEX_TOKEN });
    expect(made.error?.code).toBe(-32602);
    expect(otherCredential.error).toEqual(made.error);
    expect(otherAccount.error).toEqual(made.error);
    // Nor can they cancel it.
    expect((await task("tasks/cancel", taskId, { token: ACME_ADMIN_TOKEN })).error).toEqual(made.error);
    expect((await task("tasks/get", taskId)).result).toMatchObject({ status: "working" });
    await task("tasks/cancel", taskId);
  });

  it("tasks/result and tasks/list are not methods of this wire", async () => {
    expect((await call("tasks/result", { taskId: "x" })).error?.code).toBe(-32601);
    expect((await call("tasks/list", {})).error?.code).toBe(-32601);
  });
});

describe("an approval wait as a task", () => {
  const withUrls = {
    _meta: {
      "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} }, elicitation: { url: {} } },
    },
  };
  const asUrlClient = async (method: string, params: Record<string, unknown>, name: string) =>
    jsonAnswer(
      await postMcp(modernRpc(++ids, method, { ...params, ...withUrls }), {
        token: ACME_TOKEN,
        headers: modernHeaders(method, name),
      }),
    );

  async function proposal(): Promise<string> {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposed = await tool("propose_resolution", { order_id: orderId }, { optIn: false });
    return ((proposed.result?.structuredContent ?? {}) as { proposal_id?: string }).proposal_id ?? "";
  }

  it("asks the person to open the approval page, and completes when a person decides there", async () => {
    const proposalId = await proposal();
    const created = await asUrlClient(
      "tools/call",
      { name: "wait_for_approval", arguments: { proposal_id: proposalId } },
      "wait_for_approval",
    );
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result?.taskId as string;

    const asking = await asUrlClient("tasks/get", { taskId }, taskId);
    expect(asking.result).toMatchObject({ status: "input_required" });
    const open = (
      (asking.result?.inputRequests ?? {}) as Record<string, { method: string; params: { mode: string; url: string } }>
    ).open_approval_page;
    expect(open).toMatchObject({ method: "elicitation/create", params: { mode: "url" } });
    expect(open?.params.url).toBe(`http://localhost/approvals/${proposalId}`);

    const ack = await asUrlClient(
      "tasks/update",
      { taskId, inputResponses: { open_approval_page: { action: "accept" } } },
      taskId,
    );
    expect(ack.result).toMatchObject({ resultType: "complete" });
    const waiting = await asUrlClient("tasks/get", { taskId }, taskId);
    expect(waiting.result).toMatchObject({ status: "working" });
    expect(String(waiting.result?.statusMessage)).toContain(`/approvals/${proposalId}`);

    await approve(proposalId);
    const done = await asUrlClient("tasks/get", { taskId }, taskId);
    expect(done.result).toMatchObject({ status: "completed" });
    const answer = ((done.result?.result ?? {}) as { structuredContent?: Record<string, unknown> }).structuredContent;
    expect(answer).toMatchObject({ proposal_id: proposalId, status: "approved", decided: true });
  });

  it("a client without URL elicitation sees the link in the status; cancel leaves the proposal for a person", async () => {
    const proposalId = await proposal();
    const taskId = (await tool("wait_for_approval", { proposal_id: proposalId })).result?.taskId as string;
    const working = await task("tasks/get", taskId);
    expect(working.result).toMatchObject({ status: "working" });
    expect(String(working.result?.statusMessage)).toContain(`http://localhost/approvals/${proposalId}`);
    expect((await task("tasks/cancel", taskId)).result).toMatchObject({ resultType: "complete" });
    expect((await task("tasks/get", taskId)).result).toMatchObject({ status: "cancelled" });
    const still = await tool("get_proposal", { proposal_id: proposalId }, { optIn: false });
    expect(still.result?.structuredContent).toMatchObject({ status: "pending_approval" });
  });
});
