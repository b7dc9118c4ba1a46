import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MCP_URL } from "./mcp-client";
import { mcpHeaders, type JsonRpcMessage, type JsonRpcRequest } from "./mcp-raw";

/** Sends one JSON-RPC message straight to the AccountAgent's MCP handler and returns the JSON answer. */
export type AgentCall = (message: JsonRpcRequest) => Promise<JsonRpcMessage>;

/**
 * Runs `body` inside the account's AccountAgent with its ORDER_API binding
 * replaced by `makeFetcher(realBinding)`, then puts the real binding back.
 * The binding is the only way out of the agent, so this is how a test makes
 * the target unreachable without touching wrangler.toml.
 */
export async function withOrderApi<R>(
  account: string,
  makeFetcher: (real: Fetcher) => Fetcher,
  body: (call: AgentCall) => Promise<R>,
): Promise<R> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, account);
  return runInDurableObject(stub, async (instance) => {
    const holder = instance as unknown as { env: Env };
    const original = holder.env;
    holder.env = { ...original, ORDER_API: makeFetcher(original.ORDER_API) as Env["ORDER_API"] };
    try {
      return await body(async (message) => {
        const call = { url: MCP_URL, headers: Object.entries(mcpHeaders({ accept: "application/json" })), body: JSON.stringify(message) };
        const response = await instance.handleMcp(call, { account, operator: `Test Operator (${account})` });
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
