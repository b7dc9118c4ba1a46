import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AppEnv } from "../../src/http/app-env";
import { installErrorHandlers } from "../../src/http/error-handlers";
import { limitedBody, validJson } from "../../src/http/json-body";

// The body plumbing on a small app of its own: limitedBody reads and refuses,
// validJson (@hono/zod-validator) answers 422 in our shape, and the error
// handler keeps the status of a middleware's HTTPException.

const Schema = z.object({ name: z.string().min(2), count: z.number().int() });

const app = new Hono<AppEnv>();
app.post("/json", limitedBody("json", 64), validJson(Schema), (c) => c.json({ got: c.req.valid("json") }));
app.post("/form", limitedBody("form", 64), async (c) =>
  c.json({ got: Object.fromEntries(Object.entries(await c.req.parseBody())) }),
);
app.get("/teapot", () => {
  throw new HTTPException(418, { message: "short and stout" });
});
app.get("/forbidden", () => {
  throw new HTTPException(403, { message: "no" });
});
app.get("/boom", () => {
  throw new Error("secret detail");
});
installErrorHandlers(app);

function post(path: string, body: string, contentType: string): Promise<Response> {
  return Promise.resolve(app.request(path, { method: "POST", headers: { "content-type": contentType }, body }));
}

describe("JSON bodies", () => {
  it("a valid body reaches the handler, parsed and validated", async () => {
    const response = await post("/json", '{"name":"ok","count":2}', "application/json; charset=utf-8");
    expect(await response.json()).toEqual({ got: { name: "ok", count: 2 } });
  });

  it("a structured +json media type is JSON too", async () => {
    expect((await post("/json", '{"name":"ok","count":2}', "application/vnd.api+json")).status).toBe(200);
  });

  it.each(["text/plain", "text/x+json", "multipart/form-data; boundary=x", ""])(
    "content type %j: 415",
    async (contentType) => {
      const response = await post("/json", '{"name":"ok","count":2}', contentType);
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({
        code: "unsupported_media_type",
        message: "send the body as JSON with the header content-type: application/json",
      });
    },
  );

  it("over the limit: 413 before anything is parsed", async () => {
    const response = await post("/json", `{"name":"${"x".repeat(100)}"`, "application/json");
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      code: "payload_too_large",
      message: "request body is larger than 64 bytes",
    });
  });

  it("malformed: 400 with the parser's reason", async () => {
    const response = await post("/json", "{nope", "application/json");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^request body is not valid JSON \(.+\)$/);
  });

  it("wrong fields: 422 naming each one", async () => {
    const response = await post("/json", '{"name":"x"}', "application/json");
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      code: "validation_failed",
      message: "request body has 2 invalid field(s)",
      errors: ["name: Too small: expected string to have >=2 characters", "count is required"],
    });
  });
});

describe("form bodies", () => {
  it("urlencoded fields reach the handler", async () => {
    expect(await (await post("/form", "a=1&b=two", "application/x-www-form-urlencoded")).json()).toEqual({
      got: { a: "1", b: "two" },
    });
  });

  it("anything else is 415 naming the form encoding", async () => {
    const response = await post("/form", "a=1", "multipart/form-data; boundary=x");
    expect(response.status).toBe(415);
    expect(((await response.json()) as { message: string }).message).toBe(
      "post the form as application/x-www-form-urlencoded",
    );
  });
});

describe("the error handler", () => {
  it("keeps a middleware's HTTPException status and message in our shape", async () => {
    const forbidden = await app.request("/forbidden");
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ code: "forbidden", message: "no" });
  });

  it("answers a 4xx it has no code for as 400 bad_request", async () => {
    const teapot = await app.request("/teapot");
    expect(teapot.status).toBe(400);
    expect(await teapot.json()).toEqual({ code: "bad_request", message: "short and stout" });
  });

  it("anything else is a generic 500 without the detail, which goes to the log with its stack", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const boom = await app.request("/boom");
      expect(boom.status).toBe(500);
      expect(await boom.text()).not.toContain("secret detail");
      expect(logged).toHaveBeenCalledWith(
        "unhandled error on GET /boom:",
        expect.objectContaining({ message: "secret detail" }),
      );
    } finally {
      logged.mockRestore();
    }
  });
});
