/**
 * A transport that stays connected to one pooled server and carries one
 * request at a time through it, answered as one JSON body.
 *
 * The SDK's stateless transport serves exactly one request and must then be
 * closed, and closing a server is not free: its protocol layer builds a
 * "Connection closed" error and aborts its request controllers whether or
 * not anything waits. That was about 15 % of a ping's CPU. A pooled server
 * is lent to one request at a time (server-pool.ts), so it can keep this
 * transport instead: nothing is left behind once the answer is sent (the
 * SDK drops the request's abort controller as it answers, and a lent request
 * sends nothing to the client, see `lendable` in serve-request.ts).
 *
 * Only requests the SDK's transport would have accepted come here; anything
 * it would refuse (wrong media type, unknown protocol revision) is served by
 * that transport, so its refusals stay the SDK's own.
 *
 * Works around @modelcontextprotocol/server 2.4.0, whose stateless transport
 * refuses a second request ("Stateless transport cannot be reused"); proved
 * by test/mcp/connected-transport.test.ts and measured by `npm run bench`.
 */
import {
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Transport,
} from "@modelcontextprotocol/server";
import { PROTOCOL_VERSIONS } from "./protocol-versions";

type Answer = (message: JSONRPCMessage) => void;

export class ConnectedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private readonly waiting = new Map<string | number, Answer>();

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers are awaited; a lent request sends nothing else (see the note above).
    if (!("id" in message) || message.id === undefined || "method" in message) return;
    const answer = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    answer?.(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** The server's answer to `request`, as the SDK's transport would give it in JSON mode. */
  exchange(request: JSONRPCRequest, http: Request): Promise<Response> {
    if (this.waiting.has(request.id))
      throw new Error(`a connected transport was given request ${String(request.id)} while it still served it`);
    return new Promise((resolve) => {
      this.waiting.set(request.id, (answer) =>
        resolve(Response.json(answer, { status: 200, headers: { "content-type": "application/json" } })),
      );
      this.onmessage?.(request, { request: http });
    });
  }
}

const SERVED_REVISIONS: ReadonlySet<string> = new Set(PROTOCOL_VERSIONS);

/** Whether the SDK's transport would take this request's headers as they are (so this one may serve it). */
export function acceptedHeaders(headers: Headers): boolean {
  const revision = headers.get("mcp-protocol-version");
  return isJsonContentType(headers.get("content-type")) && (revision === null || SERVED_REVISIONS.has(revision));
}
