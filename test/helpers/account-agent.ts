import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import type { AccountServices } from "../../src/account/services";
import worker from "../../src/index";
import { MCP_URL } from "./mcp-client";
import { type JsonRpcMessage, type JsonRpcRequest, mcpHeaders } from "./mcp-raw";
import { ACME_TOKEN, GLOBEX_TOKEN } from "./tokens";

/** Sends one JSON-RPC message to /mcp and returns the JSON answer. */
export type AgentCall = (message: JsonRpcRequest) => Promise<JsonRpcMessage>;

const TOKENS: Record<string, string> = { acme: ACME_TOKEN, globex: GLOBEX_TOKEN };

/**
 * Runs `body` against a Worker whose ORDER_API binding is `makeFetcher(realBinding)`,
 * both at the edge (check_target) and inside the account's AccountAgent
 * (send_orders), then puts the real binding back. The binding is the only way
 * out to the target, so this is how a test makes the target unreachable
 * without touching wrangler.toml.
 */
export async function withOrderApi<R>(
  account: string,
  makeFetcher: (real: Fetcher) => Fetcher,
  body: (call: AgentCall) => Promise<R>,
): Promise<R> {
  const token = TOKENS[account];
  if (token === undefined) throw new Error(`no test token for ${account}`);
  const stub = await getAgentByName(env.ACCOUNT_AGENT, account);
  return runInDurableObject(stub, async (instance) => {
    const holder = instance as unknown as { env: Env };
    const original = holder.env;
    const fake = makeFetcher(original.ORDER_API) as Env["ORDER_API"];
    holder.env = { ...original, ORDER_API: fake };
    const edgeEnv: Env = { ...env, ORDER_API: fake };
    try {
      return await body(async (message) => {
        const ctx = createExecutionContext();
        const request = new Request(MCP_URL, {
          method: "POST",
          headers: mcpHeaders({ token, accept: "application/json" }),
          body: JSON.stringify(message),
        });
        const response = await worker.fetch(request, edgeEnv, ctx);
        await waitOnExecutionContext(ctx);
        return (await response.json()) as JsonRpcMessage;
      });
    } finally {
      holder.env = original;
    }
  });
}

/** A Fetcher whose fetch always throws, like a binding whose target is down. */
export function throwingFetcher(message: string): Fetcher {
  return {
    fetch: () => {
      throw new Error(message);
    },
  } as unknown as Fetcher;
}

/**
 * How many wait_for_approval calls the account's object holds for a proposal:
 * a test that decides while an agent waits first waits for this, so the wake-up
 * is what it tests, however slow the machine. The object's services are built on
 * its first call; none built means nobody waits.
 */
export async function decisionWaits(account: string, proposalId: string): Promise<number> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, account);
  return runInDurableObject(stub, async (instance) => {
    const built = (instance as unknown as { built?: Promise<AccountServices> }).built;
    return built ? (await built).proposals.waiting(proposalId) : 0;
  });
}
