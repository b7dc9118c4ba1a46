/**
 * The 2025 transport answers either always with one JSON body (and then drops
 * whatever a tool sends during the call: progress, log messages, requests to
 * the client) or always with an SSE stream. Protocol 2026-07-28 has an "auto"
 * mode in between; this gives 2025 clients the same: the transport streams,
 * and if the first thing it sends is already the answer, the client gets that
 * answer as a plain JSON body instead; if anything comes first, the client
 * gets the stream, that first event included.
 *
 * Works around @modelcontextprotocol/server 2.4.0, whose 2025 transport has
 * no such mode (`enableJsonResponse` is all or nothing). Proved necessary by
 * test/mcp/streamable-http.test.ts: "a plain tools/call gets a JSON response,
 * not a stream" beside "a tools/call with a progressToken streams
 * notifications/progress before the result".
 */
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "@modelcontextprotocol/server";
import { EVENT_STREAM_MEDIA_TYPE, isMediaType } from "../../core/media-type";

/** The data of the first complete SSE event in `text`, if one has arrived. */
function firstEventData(text: string): string | undefined {
  const blocks = text.split(/\r?\n\r?\n/);
  // The last block may still be arriving.
  for (const block of blocks.slice(0, -1)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length > 0) return data.join("\n");
  }
  return undefined;
}

export async function jsonUnlessStreamed(response: Response): Promise<Response> {
  const streams = isMediaType(response.headers.get("content-type"), EVENT_STREAM_MEDIA_TYPE);
  if (!response.ok || !response.body || !streams) return response;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const received: Uint8Array[] = [];
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received.push(value);
    text += decoder.decode(value, { stream: true });
    const data = firstEventData(text);
    if (data === undefined) continue;
    const message: unknown = JSON.parse(data);
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      await reader.cancel();
      return Response.json(message, { status: response.status });
    }
    break;
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        for (const chunk of received) controller.enqueue(chunk);
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
