import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";

const post = (body: unknown) =>
  exports.default.fetch(new Request("http://localhost/mcp", { method: "POST", headers: { authorization: "Bearer acme-dev-token", "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) }));

it("the worker answers while a batch runs", async () => {
  await exports.default.fetch(new Request("http://localhost/health"));
  const t0 = Date.now();
  const sending = post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "send_orders", arguments: { count: 60 } } }).then(async (r) => { await r.text(); return Date.now() - t0; });
  await new Promise((r) => setTimeout(r, 50));
  const t1 = Date.now();
  await (await exports.default.fetch(new Request("http://localhost/nope"))).text();
  const readMs = Date.now() - t1;
  const sendMs = await sending;
  console.log({ readMs, sendMs });
  expect(readMs).toBeLessThan(sendMs / 2);
});
