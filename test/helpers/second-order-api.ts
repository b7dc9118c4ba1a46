/**
 * The second order API that test/global/second-order-api.ts starts on this
 * machine before the suite, as the tests see it.
 */

import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { inject } from "vitest";
import worker from "../../src/index";
import type { AgentCall } from "./account-agent";
import { MCP_URL } from "./mcp-client";
import { type JsonRpcMessage, mcpHeaders } from "./mcp-raw";
import { ACME_TOKEN } from "./tokens";

export interface ReceivedOrder {
  readonly request_id: string;
  readonly account: string | null;
  readonly actor: string | null;
  readonly authorization: string | null;
  readonly status: number;
}

export function secondOrderApi(): { url: string; token: string } {
  return inject("secondOrderApi");
}

/** What the second API's POST /api/orders has taken so far, headers included. */
export async function receivedBySecondApi(): Promise<ReceivedOrder[]> {
  return (await (await fetch(`${secondOrderApi().url}/received`)).json()) as ReceivedOrder[];
}

/** The vars that aim acme's synthetic traffic at the second API, under `basePath`. */
export function secondApiVars(basePath = "", token = secondOrderApi().token): Record<string, string> {
  return { ORDER_API_URL: `${secondOrderApi().url}${basePath}`, ORDER_API_TOKEN: token };
}

/**
 * Runs `body` with acme's MCP calls served by a Worker, and acme's object,
 * whose configuration has `vars` on top: the object builds its services again
 * from that configuration, and both are put back afterwards.
 */
export async function withAcmeVars<R>(vars: Record<string, string>, body: (call: AgentCall) => Promise<R>): Promise<R> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, "acme");
  return runInDurableObject(stub, async (instance) => {
    const holder = instance as unknown as { env: Env; built: unknown };
    const original = { env: holder.env, built: holder.built };
    const edgeEnv = { ...env, ...vars } as Env;
    holder.env = { ...original.env, ...vars } as Env;
    holder.built = undefined;
    try {
      return await body(async (message) => {
        const ctx = createExecutionContext();
        const request = new Request(MCP_URL, {
          method: "POST",
          headers: mcpHeaders({ token: ACME_TOKEN, accept: "application/json" }),
          body: JSON.stringify(message),
        });
        const response = await worker.fetch(request, edgeEnv, ctx);
        await waitOnExecutionContext(ctx);
        return (await response.json()) as JsonRpcMessage;
      });
    } finally {
      holder.env = original.env;
      holder.built = original.built;
    }
  });
}
