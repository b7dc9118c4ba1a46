import type { z } from "zod";
import { fail, ok, type Result } from "../core/errors";
import { describeIssues } from "../core/zod-issues";

/** The body as text, refusing (413) more than `maxBytes` whatever Content-Length claims. */
export async function readLimitedText(request: Request, maxBytes: number): Promise<Result<string>> {
  const tooLarge = () => fail("payload_too_large", `request body is larger than ${maxBytes} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return tooLarge();
  if (!request.body) return ok("");
  // Content-Length can be absent (chunked) or wrong, so count what actually arrives.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return tooLarge();
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return ok(new TextDecoder().decode(whole));
}

function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json" || (mediaType?.endsWith("+json") ?? false);
}

/**
 * Reads, size-checks, parses and validates a JSON body. Each failure has its own
 * code (413, 415, 400, 422) so a client can tell "too big" from "not JSON" from
 * "JSON of the wrong shape".
 */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S, maxBytes: number): Promise<Result<z.infer<S>>> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return fail("unsupported_media_type", "send the body as JSON with the header content-type: application/json");
  }
  const text = await readLimitedText(request, maxBytes);
  if (!text.ok) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "unparseable";
    return fail("malformed_json", `request body is not valid JSON (${reason})`);
  }
  const validated = schema.safeParse(parsed);
  if (!validated.success) {
    const problems = describeIssues(validated.error);
    return fail("validation_failed", `request body has ${problems.length} invalid field(s)`, problems);
  }
  return ok(validated.data);
}
