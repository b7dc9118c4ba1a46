import type { McpServer } from "@modelcontextprotocol/server";
import type { Config } from "../config/config";
import type { AccountToolContext } from "./account-context";

/**
 * Built MCP servers, kept per isolate and lent to one request at a time.
 * Building a server (the SDK's protocol machinery, then every tool, resource
 * and card) cost more than answering most requests. What a server offers
 * depends only on the configuration and on what the credential may see, so
 * that is the key; whose request it serves (account, operator, the account's
 * services) is handed to it for the length of one request and taken back
 * before anyone else borrows it. Nothing a request leaves behind is kept: the
 * server is closed (the SDK resets its connection state) before it goes back.
 */

/** What a lent server reads during its one request. */
export interface Lending {
  /** The context of the request being served; throws when none is. */
  readonly context: () => AccountToolContext;
}

interface Idle {
  readonly server: McpServer;
  readonly slot: Slot;
}

interface Slot {
  current: AccountToolContext | undefined;
}

/** Idle servers kept per key: as many as requests commonly run at once in one isolate. */
const MAX_IDLE_PER_KEY = 8;

const pools = new WeakMap<Config, Map<string, Idle[]>>();

/**
 * A key that differs whenever what a server registers would: the names it
 * shows this credential and the scopes its resources follow. Accounts and
 * operators are not part of it, because nothing registered depends on them.
 */
export function offerKey(visibleTools: readonly string[], context: AccountToolContext): string {
  return `${visibleTools.join(",")}|${[...context.scopes].sort().join(",")}`;
}

/**
 * Runs `serve` with a server for `key`, built by `build` when none is idle.
 * The server returns to the pool only if `serve` settles normally and its
 * connection closes; a server that failed is dropped.
 */
export async function withPooledServer<T>(
  context: AccountToolContext,
  key: string,
  build: (lending: Lending) => McpServer,
  serve: (server: McpServer) => Promise<T>,
): Promise<T> {
  let byKey = pools.get(context.config);
  if (!byKey) {
    byKey = new Map();
    pools.set(context.config, byKey);
  }
  const idle = byKey.get(key) ?? [];
  byKey.set(key, idle);
  const lent = idle.pop() ?? newIdle(build, context);
  lent.slot.current = context;
  let result: T;
  try {
    result = await serve(lent.server);
    await closeQuietly(lent.server);
  } finally {
    lent.slot.current = undefined;
  }
  if (idle.length < MAX_IDLE_PER_KEY) idle.push(lent);
  return result;
}

/**
 * Closing resets the SDK's connection state, and on the way builds an error
 * ("Connection closed") for anything still waiting. Nothing is waiting once
 * the answer exists, but capturing that error's stack cost more than a
 * whole ping; it is built without one. The SDK builds it before its first
 * await, so the limit is back in place when this returns.
 */
function closeQuietly(server: McpServer): Promise<void> {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return server.close();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Built while lent to its first request, whose context decides what it registers (the key says the same). */
function newIdle(build: (lending: Lending) => McpServer, first: AccountToolContext): Idle {
  const slot: Slot = { current: first };
  const context = () => {
    if (!slot.current) throw new Error("a pooled MCP server ran outside the request it was lent to");
    return slot.current;
  };
  return { server: build({ context }), slot };
}
