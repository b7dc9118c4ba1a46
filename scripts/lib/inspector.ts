// A minimal Chrome DevTools Protocol client for the Worker under `wrangler dev`
// (its --inspector-port): the heap after a forced collection, and CPU profiles.
// wrangler's inspector proxy answers only to a DevTools origin, and sends
// messages of its own with ids from 100000000 up, so ours stay below that.

export interface Inspector {
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  close(): void;
}

const DEVTOOLS_ORIGIN = "https://devtools.devprod.cloudflare.dev";

export async function connectInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets.find((target) => target.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (!url) throw new Error(`the inspector on port ${port} lists no debuggable Worker`);
  // Node's WebSocket takes headers as an undici extension.
  const socket = new WebSocket(url, { headers: { origin: DEVTOOLS_ORIGIN } } as unknown as string[]);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`could not open the inspector at ${url}`)), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, (message: { result?: unknown; error?: { message?: string } }) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message?: string } };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  return {
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

/** Bytes in use on the Worker's V8 heap after a full collection: what the isolate really keeps. */
export async function heapAfterCollection(inspector: Inspector): Promise<number> {
  await inspector.send("HeapProfiler.collectGarbage").catch(() => undefined);
  const usage = await inspector.send<{ usedSize: number }>("Runtime.getHeapUsage");
  return usage.usedSize;
}
