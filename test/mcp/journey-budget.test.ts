import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type JourneyPort,
  LOAD_TEST_BUDGET,
  loadTest,
  OPS_LOOP_BUDGET,
  opsLoop,
  totalBytes,
} from "../../scripts/lib/journeys";
import { connectClient, type McpTestClient } from "../helpers/mcp-client";
import { approve, callTool } from "../helpers/ops";
import { ACME_SECOND_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";
import { structuredOf } from "../helpers/tool-results";

// What a model reads on the two journeys it is asked for most (issue 55): the
// text content of every answer, over real MCP; `npm run bench` prints the same
// journeys against `wrangler dev`. Runs alone, on the demo data as the
// migrations leave it, so the queue it lists is always the same.

let client: McpTestClient;
let port: JourneyPort;

beforeAll(async () => {
  client = await connectClient(ACME_TOKEN, "journey");
  port = {
    async call(name, args = {}) {
      const result = await callTool(client, name, args);
      const structured = structuredOf<Record<string, unknown>>(result);
      const blocks = (result.content ?? []) as { text?: string }[];
      return { text: blocks.map((block) => block.text ?? "").join(""), structured };
    },
    async approve(proposalId, approvalsRequired) {
      await approve(proposalId);
      if (approvalsRequired === 2) await approve(proposalId, "second look, fine", ACME_SECOND_APPROVER_TOKEN);
    },
  };
});
afterAll(async () => {
  await client.close();
});

describe("what a model reads on a journey", () => {
  it(`the ops loop, from the queue to the audit log, is at most ${OPS_LOOP_BUDGET} bytes of text`, async () => {
    const steps = await opsLoop(port);
    expect(steps.map((s) => s.step)).toHaveLength(7);
    expect(totalBytes(steps)).toBeLessThanOrEqual(OPS_LOOP_BUDGET);
  });

  it(`a load test, started, polled five times while it runs and read once ended, is at most ${LOAD_TEST_BUDGET} bytes of text`, async () => {
    const steps = await loadTest(port);
    expect(steps).toHaveLength(8);
    expect(totalBytes(steps)).toBeLessThanOrEqual(LOAD_TEST_BUDGET);
  });
});
