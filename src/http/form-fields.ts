import { zValidator } from "@hono/zod-validator";
import { z } from "zod/v4";
import type { BodyRefusal } from "./json-body";

/**
 * Hono's form and query validators hand a repeated field over as an array.
 * Our forms and the export query read a repeated field as its first value,
 * as URLSearchParams.get and c.req.query() do; `lists` name the fields that
 * keep every value (checkboxes, as URLSearchParams.getAll reads them).
 */
export function firstValues<S extends z.ZodType>(schema: S, lists: readonly string[] = []) {
  return z.preprocess(
    (fields) =>
      typeof fields === "object" && fields !== null
        ? Object.fromEntries(
            Object.entries(fields).map(([name, value]) => [
              name,
              lists.includes(name) ? [value].flat() : Array.isArray(value) ? value[0] : value,
            ]),
          )
        : fields,
    schema,
  );
}

/**
 * A page's form, validated by Hono's validator (after limitedBody has checked
 * its type and size). A form that does not fit the schema is answered by
 * `refuse`, the page's own way, with 422 and each problem's message.
 */
export function validForm<S extends z.ZodType>(schema: S, refuse: BodyRefusal, lists: readonly string[] = []) {
  return zValidator("form", firstValues(schema, lists), (result, c) => {
    if (result.success) return undefined;
    return refuse(c, {
      code: "validation_failed",
      message: result.error.issues.map((issue) => issue.message).join("; "),
    });
  });
}
