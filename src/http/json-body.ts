import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validator } from "hono/validator";
import type { z } from "zod/v4";
import { type AppError, fail, ok, type Result } from "../core/errors";
import { FORM_MEDIA_TYPE, isJsonMediaType, isMediaType, unreadableCharset } from "../core/media-type";
import { describeIssues } from "../core/zod-issues";
import { errorResponse } from "./respond";

/**
 * The body as text, refusing (413) more than `maxBytes` whatever Content-Length
 * claims: hono/body-limit refuses a declared length over the limit unread, and
 * counts a body that declares none (chunked) as it arrives. Its refusal is
 * turned into our error here, so each caller answers in its own shape (JSON,
 * a page, a JSON-RPC error). The text lands in Hono's body cache, where
 * `c.req.text()` and the validators read it.
 */
export async function readLimitedText(c: Context, maxBytes: number): Promise<Result<string>> {
  let tooLarge = false;
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (refused) => {
      tooLarge = true;
      return refused.body(null, 413);
    },
  });
  await limit(c, async () => {});
  if (tooLarge) return fail("payload_too_large", `request body is larger than ${maxBytes} bytes`);
  const charsetWhy = unreadableCharset(c.req.header("content-type"));
  if (charsetWhy) return fail("unsupported_media_type", charsetWhy);
  if (!isMediaType(c.req.header("content-type"), FORM_MEDIA_TYPE)) return ok(await c.req.text());
  // workerd warns on every text() of a form body ("does not appear to be text"), so a form is read as bytes; Hono
  // keeps them, and the form validator parses them from there.
  return ok(new TextDecoder().decode(await c.req.arrayBuffer()));
}

const WRONG_MEDIA_TYPE: Record<BodyKind, AppError> = {
  json: {
    code: "unsupported_media_type",
    message: "send the body as JSON with the header content-type: application/json",
  },
  form: { code: "unsupported_media_type", message: "post the form as application/x-www-form-urlencoded" },
};

type BodyKind = "json" | "form";

// isJsonMediaType is the test hono/validator applies, so a body we let through is never silently read as {}.
function isAccepted(kind: BodyKind, header: string | undefined): boolean {
  return kind === "json" ? isJsonMediaType(header) : isMediaType(header, FORM_MEDIA_TYPE);
}

/** How a refused body is answered: JSON for APIs, a page for the approval forms. */
export type BodyRefusal = (c: Context, error: AppError) => Response | Promise<Response>;

/**
 * Reads the body once, before anything parses it, so each failure keeps its own
 * answer: 415 for a wrong content type, 413 for too many bytes (readLimitedText),
 * and for JSON 400 with the parser's reason.
 */
export function limitedBody(kind: BodyKind, maxBytes: number, refuse: BodyRefusal = errorResponse): MiddlewareHandler {
  return async (c, next) => {
    if (!isAccepted(kind, c.req.header("content-type"))) return refuse(c, WRONG_MEDIA_TYPE[kind]);
    const text = await readLimitedText(c, maxBytes);
    if (!text.ok) return refuse(c, text.error);
    if (kind === "json") {
      try {
        JSON.parse(text.value);
      } catch (error) {
        const reason = error instanceof SyntaxError ? error.message : "unparseable";
        return refuse(c, { code: "malformed_json", message: `request body is not valid JSON (${reason})` });
      }
    }
    await next();
  };
}

/**
 * 422 naming every invalid field, in our error shape instead of zod's raw
 * result. The parse is synchronous: no body schema has an async check, and
 * every intake order passes through here, where zod's async parse cost a
 * promise per field.
 */
export function validJson<S extends z.ZodType>(schema: S) {
  return validator("json", (value, c): z.output<S> | Response | Promise<Response> => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const problems = describeIssues(result.error);
    return errorResponse(c, {
      code: "validation_failed",
      message: `request body has ${problems.length} invalid field(s)`,
      errors: problems,
    });
  });
}
