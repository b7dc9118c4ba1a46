/**
 * Lets a tool wait until what it streamed has actually been taken by the client.
 *
 * send_orders runs in the account's Durable Object and reports progress back
 * to this request. While the batch keeps the runtime busy (the object, the
 * order API and its database can all share one thread, and always do under
 * `wrangler dev`), this request is not scheduled, so a notification written to
 * its stream stays queued until the batch ends and then arrives together with
 * the result. The object therefore waits for each progress report to be
 * delivered before it posts more orders: only about 20 short pauses per batch,
 * and each one is exactly as long as the client needs to take the report.
 *
 * Not an SDK gap but a runtime one (workerd, any SDK version): the SDK's
 * transport cannot know when its stream was read. Proved necessary by
 * test/mcp/streamable-http.test.ts, "a tools/call with a progressToken
 * streams notifications/progress before the result", and by the smoke run's
 * "progress streams" checks (the first event well before the result).
 */
import { EVENT_STREAM_MEDIA_TYPE, isMediaType } from "../../core/media-type";

const DELIVERY_WAIT_CAP_MS = 250;

export class ResponseDelivery {
  /** Times the client asked for more of the body. */
  private pulls = 0;
  private done: boolean;
  private waiters: { until: number; resolve: () => void }[] = [];

  /** `streaming` false: the answer is one JSON body, so there is nothing to wait for. */
  constructor(streaming: boolean) {
    this.done = !streaming;
  }

  /** The response with its SSE body tracked; anything else passes unchanged. */
  track(response: Response): Response {
    const streams = isMediaType(response.headers.get("content-type"), EVENT_STREAM_MEDIA_TYPE);
    if (!response.body || !streams) {
      this.finish();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          this.pulled();
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            this.finish();
          } else {
            controller.enqueue(value);
          }
        },
        cancel: async (reason) => {
          this.finish();
          await reader.cancel(reason);
        },
      },
      // Nothing is read ahead, so a pull means the client took everything before it.
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** Resolves once the client has taken what was written before this call (or after a short cap). */
  taken(): Promise<void> {
    if (this.done) return Promise.resolve();
    // The frame just written is handed to the runtime by the next pull at the latest.
    const until = this.pulls + 1;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, DELIVERY_WAIT_CAP_MS);
      this.waiters.push({
        until,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private pulled(): void {
    this.pulls++;
    this.release((waiter) => waiter.until <= this.pulls);
  }

  private finish(): void {
    this.done = true;
    this.release(() => true);
  }

  private release(ready: (waiter: { until: number }) => boolean): void {
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (ready(waiter)) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }
}
