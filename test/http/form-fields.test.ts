import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import type { AppError } from "../../src/core/errors";
import type { AppEnv } from "../../src/http/app-env";
import { firstValues, validForm } from "../../src/http/form-fields";
import { limitedBody } from "../../src/http/json-body";

// Hono's validators hand a repeated field over as an array; the pages read the
// first value, as URLSearchParams.get did before them, and keep every value
// only of the fields named as lists (checkboxes).

const refuse = (c: Context, error: AppError) => c.text(`${error.code}: ${error.message}`, 422);

const Form = z.object({
  name: z.string().optional(),
  reason: z.string().min(3, "give a reason of at least 3 characters").prefault(""),
  scope: z.array(z.string()).default([]),
});

const app = new Hono<AppEnv>();
app.post("/form", limitedBody("form", 1024), validForm(Form, refuse, ["scope"]), (c) => c.json(c.req.valid("form")));
app.get(
  "/query",
  zValidator("query", firstValues(z.strictObject({ format: z.enum(["csv", "ndjson"]).optional() })), (result, c) =>
    result.success ? undefined : c.text("refused", 400),
  ),
  (c) => c.json(c.req.valid("query")),
);

function postForm(body: string): Promise<Response> {
  return Promise.resolve(
    app.request("/form", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body }),
  );
}

describe("form fields", () => {
  it("a repeated field reads as its first value, like URLSearchParams.get", async () => {
    const body = "name=first&name=second&reason=because";
    expect(await (await postForm(body)).json()).toEqual({
      name: new URLSearchParams(body).get("name"),
      reason: "because",
      scope: [],
    });
  });

  it("a list keeps every value, like URLSearchParams.getAll, and a single one is a list of one", async () => {
    expect(await (await postForm("scope=a&reason=why&scope=b")).json()).toEqual({ reason: "why", scope: ["a", "b"] });
    expect(await (await postForm("scope=a&reason=why")).json()).toEqual({ reason: "why", scope: ["a"] });
  });

  it("a form that does not fit is the page's own refusal: 422 with each problem's message", async () => {
    const response = await postForm("name=x");
    expect(response.status).toBe(422);
    expect(await response.text()).toBe("validation_failed: give a reason of at least 3 characters");
  });

  it("a repeated query parameter reads as its first value, like c.req.query()", async () => {
    const response = await app.request("/query?format=csv&format=bogus");
    expect(await response.json()).toEqual({ format: "csv" });
  });
});
