import { env } from "cloudflare:workers";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { getAgentByName } from "agents";
import { afterEach, describe, expect, it } from "vitest";
import { connectModernClient } from "../helpers/mcp-client";
import { jsonAnswer, modernHeaders, postMcp } from "../helpers/mcp-raw";
import { simulateRestart } from "../helpers/simulated-restart";
import { freshSeed } from "../helpers/synthetic";
import { ACME_TOKEN } from "../helpers/tokens";

// A traffic run driven as an MCP task by a maintained client: the v2 SDK client
// with @modelcontextprotocol/ext-tasks, which declares the extension and keeps
// the handle. Each step reads the task once (snapshot), so no test waits on time.

const CLIENT_INFO = { name: "vitest-ext-tasks", version: "1.0.0" };
const CAPABILITIES = { extensions: { "io.modelcontextprotocol/tasks": {} } };

interface RawRequest {
  readonly method: string;
  readonly params?: { readonly name?: string; readonly taskId?: string };
}

let session: TaskEnabledSession | undefined;
let requestIds = 0;

async function openSession(): Promise<TaskEnabledSession> {
  const client = await connectModernClient(ACME_TOKEN, CLIENT_INFO.name);
  session = createTaskSessionFromClient(client, {
    endpointId: "order-ops-edge-test",
    // ext-tasks asks for the raw 2026-07-28 request path; this is it, through the Worker.
    rawDispatch: async (request) => {
      const { method, params } = request as unknown as RawRequest;
      const name = params?.name ?? params?.taskId;
      // It hands over the request without its JSON-RPC framing, and wants the answer as a result or an error.
      const body = { jsonrpc: "2.0", id: ++requestIds, ...(request as Record<string, JsonValue>) };
      const answer = await jsonAnswer(await postMcp(body, { token: ACME_TOKEN, headers: modernHeaders(method, name) }));
      return answer.error === undefined
        ? { kind: "result", result: (answer.result ?? {}) as JsonValue }
        : { kind: "error", error: answer.error };
    },
    v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo: CLIENT_INFO, clientCapabilities: CAPABILITIES },
  });
  return session;
}

afterEach(async () => {
  await session?.close();
  session = undefined;
});

const longRun = () => ({ rate_per_second: 1, duration_seconds: 600, mode: "seeded", seed: freshSeed() });

async function stopRun(runId: string): Promise<void> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "stop_traffic_run",
      arguments: { run_id: runId },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
  await postMcp(body, { token: ACME_TOKEN, headers: modernHeaders("tools/call", "stop_traffic_run") });
}

const runIdOf = (message: string | undefined) => /traffic run (\S+) is/.exec(message ?? "")?.[1] ?? "";

describe("a traffic run as a task, through ext-tasks", () => {
  it("starts as a task, reads working, and once the run ended its result is the run", async () => {
    const tasks = await openSession();
    const execution = await tasks.callTool("start_traffic_run", longRun());
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const controller = tasks.task(execution.handle.taskId);
    const working = await controller.snapshot();
    expect(working.status).toBe("working");
    const runId = runIdOf(working.statusMessage);
    expect(runId).toMatch(/^R-/);

    await stopRun(runId);
    const outcome = await controller.result();
    expect(outcome).toMatchObject({ status: "completed" });
    expect(JSON.stringify(outcome)).toContain(`"run_id":"${runId}"`);
    expect(JSON.stringify(outcome)).toContain('"status":"stopped"');
  });

  it("cancels: the run is stopped and the task reads cancelled", async () => {
    const tasks = await openSession();
    const execution = await tasks.callTool("start_traffic_run", longRun());
    if (execution.kind !== "task") throw new Error("expected a task");
    const controller = tasks.task(execution.handle.taskId);
    const runId = runIdOf((await controller.snapshot()).statusMessage);
    await controller.cancel();
    expect((await controller.snapshot()).status).toBe("cancelled");
    const run = await jsonAnswer(
      await postMcp(
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: {
            name: "get_traffic_run",
            arguments: { run_id: runId },
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        },
        { token: ACME_TOKEN, headers: modernHeaders("tools/call", "get_traffic_run") },
      ),
    );
    expect(run.result?.structuredContent).toMatchObject({ run_id: runId, status: "stopped" });
  });

  it("survives a restart of the account's object in the middle", async () => {
    const tasks = await openSession();
    const execution = await tasks.callTool("start_traffic_run", longRun());
    if (execution.kind !== "task") throw new Error("expected a task");
    const controller = tasks.task(execution.handle.taskId);
    const before = await controller.snapshot();
    await simulateRestart(await getAgentByName(env.ACCOUNT_AGENT, "acme"));
    const after = await controller.snapshot();
    expect(before.status).toBe("working");
    expect(after).toMatchObject({ taskId: before.taskId, status: "working" });
    expect(runIdOf(after.statusMessage)).toBe(runIdOf(before.statusMessage));
    await controller.cancel();
    expect((await controller.snapshot()).status).toBe("cancelled");
  });
});
