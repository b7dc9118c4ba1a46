/**
 * tools/list, answered once per pooled server. A pooled server lists the same
 * tools to every borrower (serve-request.ts): about 100 KiB of JSON
 * that differs between requests only in its JSON-RPC id. The first request
 * is answered by the SDK like any other, and the bytes of its result are
 * kept; every later one is answered with those bytes behind its own id,
 * without the SDK's dispatch and without writing the JSON again.
 */
import type { JSONRPCRequest } from "@modelcontextprotocol/server";
import type { ConnectedTransport } from "./connected-transport";

const UTF8 = new TextEncoder();

/**
 * A tools/list that asks for the whole list and nothing else (no cursor, no _meta); anything else is the SDK's to
 * answer.
 */
export function isWholeToolList(message: JSONRPCRequest): boolean {
  if (message.method !== "tools/list") return false;
  const params: unknown = message.params;
  return (
    params === undefined ||
    (typeof params === "object" && params !== null && !Array.isArray(params) && Object.keys(params).length === 0)
  );
}

/** `"result":…}`, the end of an answer the SDK gave, as bytes; undefined unless it was a plain result. */
async function resultBytesOf(answer: Response): Promise<Uint8Array | undefined> {
  if (answer.status !== 200) return undefined;
  try {
    const message = (await answer.json()) as { result?: unknown; error?: unknown };
    if (message.result === undefined || message.error !== undefined) return undefined;
    return UTF8.encode(`"result":${JSON.stringify(message.result)}}`);
  } catch {
    return undefined;
  }
}

export class ToolListCache {
  private result: Uint8Array | undefined;

  constructor(private readonly transport: ConnectedTransport) {}

  /** The answer to a whole listing (isWholeToolList): from the kept result once there is one. */
  async answer(request: JSONRPCRequest, http: Request): Promise<Response> {
    if (this.result) {
      const head = UTF8.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},`);
      const body = new Uint8Array(head.length + this.result.length);
      body.set(head);
      body.set(this.result, head.length);
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    }
    const answer = await this.transport.exchange(request, http);
    // A pooled server is lent to one request at a time, so no other request races this one to keep the result.
    this.result = await resultBytesOf(answer.clone());
    return answer;
  }
}
