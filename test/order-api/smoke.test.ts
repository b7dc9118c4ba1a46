import { env, exports } from "cloudflare:workers";
import { expect, it } from "vitest";

it("answers health", async () => {
  const res = await exports.default.fetch("http://example.com/health");
  expect(await res.json()).toEqual({ status: "ok", skus: 8, customers: 5 });
  expect((env as unknown as Record<string, string>).ENVIRONMENT).toBe("development");
});
