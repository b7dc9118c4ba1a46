/**
 * Built MCP servers, kept per isolate and lent to one request at a time.
 * Building a server (the SDK's protocol machinery, then every tool, resource
 * and card) cost more than answering most requests. What a server offers
 * depends only on the configuration and on what the credential may see, so
 * that is the key; whose request it serves (account, operator, the account's
 * services) is handed to it for the length of one request and taken back
 * before anyone else borrows it. A server stays connected between requests
 * (connected-transport.ts says why nothing of a request outlives its answer).
 */

/** What a lent server reads during its one request. */
export interface Loan<C> {
  /** The context of the request being served; throws when none is. */
  readonly context: () => C;
}

interface Idle<C, S> {
  readonly server: S;
  readonly slot: Slot<C>;
}

interface Slot<C> {
  current: C | undefined;
}

/** Idle servers kept per key: as many as requests commonly run at once in one isolate. */
const MAX_IDLE_PER_KEY = 8;

const pools = new WeakMap<object, Map<string, Idle<unknown, unknown>[]>>();

/**
 * A key that differs whenever what a server registers would: the names it
 * shows this credential and the scopes its resources follow. Accounts and
 * operators are not part of it, because nothing registered depends on them.
 */
export function poolKey(visibleTools: readonly string[], scopes: Iterable<string>): string {
  return `${visibleTools.join(",")}|${[...scopes].sort().join(",")}`;
}

/** Where a request borrows from: the pools of one configuration (`scope`), the one for `key`, lent to `borrower`. */
export interface PoolShelf<C> {
  readonly scope: object;
  readonly key: string;
  readonly borrower: C;
}

/**
 * Runs `serve` with a server for `key`, built by `build` when none is idle.
 * The server returns to the pool only if `serve` settles normally; a server
 * that failed is dropped. One key always builds the same kind of server.
 */
export async function withPooledServer<C, S, T>(
  { scope, key, borrower }: PoolShelf<C>,
  build: (loan: Loan<C>) => S,
  serve: (server: S) => Promise<T>,
): Promise<T> {
  let byKey = pools.get(scope);
  if (!byKey) {
    byKey = new Map();
    pools.set(scope, byKey);
  }
  const idle = (byKey.get(key) ?? []) as Idle<C, S>[];
  byKey.set(key, idle);
  const lent = idle.pop() ?? newIdle(build, borrower);
  lent.slot.current = borrower;
  let result: T;
  try {
    result = await serve(lent.server);
  } finally {
    lent.slot.current = undefined;
  }
  if (idle.length < MAX_IDLE_PER_KEY) idle.push(lent);
  return result;
}

/** Built while lent to its first request, whose context decides what it registers (the key says the same). */
function newIdle<C, S>(build: (loan: Loan<C>) => S, first: C): Idle<C, S> {
  const slot: Slot<C> = { current: first };
  const context = () => {
    if (!slot.current) throw new Error("a pooled MCP server ran outside the request it was lent to");
    return slot.current;
  };
  return { server: build({ context }), slot };
}
