import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import type { AppEnv } from "../../src/http/app-env";
import { limitedBody, validJson } from "../../src/http/json-body";
import { postMcp, rpc } from "../helpers/mcp-raw";
import { ACME_TOKEN } from "../helpers/tokens";

// Every body is decoded as UTF-8. One that declares another charset (application/json; charset=utf-16 was read as
// UTF-8 by an adversarial run) is refused with 415 naming the charset, never read as something it is not.

const app = new Hono<AppEnv>();
app.post("/json", limitedBody("json", 256), validJson(z.object({ name: z.string() })), (c) => c.json({ ok: true }));

function utf16(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) bytes[i * 2] = text.charCodeAt(i);
  return bytes;
}

describe("a body in a charset other than UTF-8", () => {
  it.each([
    "application/json; charset=utf-16",
    "application/json; Charset=UTF-16LE",
    "application/json;charset=latin1",
  ])("%j: 415 naming it", async (contentType) => {
    const response = await app.request("/json", {
      method: "POST",
      headers: { "content-type": contentType },
      body: utf16('{"name":"x"}'),
    });
    expect(response.status).toBe(415);
    const { code, message } = (await response.json()) as { code: string; message: string };
    expect(code).toBe("unsupported_media_type");
    expect(message).toMatch(/^charset=[\w-]+ is not read here; send UTF-8$/);
  });

  it("UTF-8 declared in any case is read", async () => {
    const response = await app.request("/json", {
      method: "POST",
      headers: { "content-type": "Application/JSON; CHARSET=UTF-8" },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(200);
  });

  it("the MCP endpoint refuses it with 415 as well", async () => {
    const response = await postMcp(JSON.stringify(rpc(1, "tools/list")), {
      token: ACME_TOKEN,
      headers: { "content-type": "application/json; charset=utf-16" },
    });
    expect(response.status).toBe(415);
  });
});
