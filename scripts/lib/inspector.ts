// A minimal Chrome DevTools Protocol client for the Worker under `wrangler dev`
// (its --inspector-port): the heap after a forced collection, and CPU profiles.
// wrangler's inspector proxy answers only to a DevTools origin, and sends
// messages of its own with ids from 100000000 up, so ours stay below that.
// workerd's own inspector (a target picked by name) answers nothing to a
// socket opened with that origin, so it gets none.

export interface Inspector {
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Execution contexts announced so far (after Runtime.enable), newest last. */
  readonly contexts: readonly number[];
  close(): void;
}

const DEVTOOLS_ORIGIN = "https://devtools.devprod.cloudflare.dev";

/**
 * `target` picks one isolate by its id on workerd's own inspector, which
 * lists each Worker as `core:user:<name>`; without it, the first one listed
 * (wrangler's inspector proxy lists one).
 */
export async function connectInspector(port: number, target?: string): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as {
    id?: string;
    webSocketDebuggerUrl?: string;
  }[];
  const url = targets.find(
    (listed) => listed.webSocketDebuggerUrl && (target === undefined || listed.id === target),
  )?.webSocketDebuggerUrl;
  if (!url)
    throw new Error(
      `the inspector on port ${port} lists no debuggable Worker${target === undefined ? "" : ` named ${target}`}`,
    );
  // Node's WebSocket takes headers as an undici extension.
  const socket =
    target === undefined
      ? new WebSocket(url, { headers: { origin: DEVTOOLS_ORIGIN } } as unknown as string[])
      : new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`could not open the inspector at ${url}`)), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, (message: { result?: unknown; error?: { message?: string } }) => void>();
  const contexts: number[] = [];
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as {
      id?: number;
      method?: string;
      params?: { context?: { id?: number } };
      result?: unknown;
      error?: { message?: string };
    };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
    const context = message.params?.context?.id;
    if (message.method === "Runtime.executionContextCreated" && context !== undefined) contexts.push(context);
  });
  return {
    contexts,
    send<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the inspector did not answer ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(id, (message) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (message.error) reject(new Error(`${method}: ${message.error.message ?? "failed"}`));
          else resolve(message.result as T);
        });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

/**
 * Sends one message and, while it is unanswered, `nudge`s the Worker every
 * 200 ms: workerd's own inspector handles a message only when the isolate
 * next wakes, and an idle isolate may not wake for a long time.
 */
export async function sendNudged<T>(
  inspector: Inspector,
  method: string,
  nudge: (() => Promise<unknown>) | undefined,
  params: Record<string, unknown> = {},
  timeoutMs = 120_000,
): Promise<T> {
  let answered = false;
  const answer = inspector.send<T>(method, params, timeoutMs).finally(() => (answered = true));
  // Handled at once: it may fail while a nudge is on its way.
  answer.catch(() => undefined);
  while (nudge && !answered) {
    await nudge();
    await Promise.race([answer.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 200))]);
  }
  return answer;
}

/** Bytes in use on the Worker's V8 heap after a full collection: what the isolate really keeps. */
export async function heapAfterCollection(inspector: Inspector, nudge?: () => Promise<unknown>): Promise<number> {
  await sendNudged(inspector, "HeapProfiler.collectGarbage", nudge).catch(() => undefined);
  const usage = await sendNudged<{ usedSize: number }>(inspector, "Runtime.getHeapUsage", nudge);
  return usage.usedSize;
}

export interface IsolateAddress {
  /** workerd's own inspector port (workerd-runtime.ts). */
  readonly runtimePort: number;
  /** wrangler's --inspector-port. */
  readonly wranglerPort: number;
  /** `core:user:<worker name>`. */
  readonly isolate: string;
  /** An expression that is true in that isolate's global scope only. */
  readonly marker: string;
  /** A request to that Worker, to wake its isolate. */
  readonly nudge: () => Promise<unknown>;
}

/**
 * One Worker's isolate when several run under one `wrangler dev`. workerd
 * serves one inspector session per isolate, wrangler's proxy holds one for
 * whichever Worker loaded last, and a second session to that isolate gets no
 * answers and leaves wrangler's unanswered too. So wrangler's proxy is asked
 * first which isolate it holds; only another one is opened directly.
 */
export async function connectIsolate({
  runtimePort,
  wranglerPort,
  isolate,
  marker,
  nudge,
}: IsolateAddress): Promise<Inspector> {
  const proxied = await connectInspector(wranglerPort);
  await sendNudged(proxied, "Runtime.enable", nudge, {}, 10_000);
  const contextId = proxied.contexts.at(-1);
  const probe = await sendNudged<{ result?: { value?: unknown } }>(
    proxied,
    "Runtime.evaluate",
    nudge,
    { expression: marker, returnByValue: true, contextId },
    10_000,
  );
  if (probe.result?.value === true) return proxied;
  proxied.close();
  return connectInspector(runtimePort, isolate);
}
