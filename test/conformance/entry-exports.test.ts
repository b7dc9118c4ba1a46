import { describe, expect, it } from "vitest";
import * as developmentEntry from "../../conformance/worker";
import * as productEntry from "../../src/index";

// `npm run conformance` starts wrangler dev with conformance/worker.ts as the
// entry and wrangler.toml's bindings, so every Durable Object class the product
// binds must be exported from it too, or wrangler refuses to start.
describe("the conformance entry", () => {
  it("exports every name the product's entry exports", () => {
    expect(Object.keys(developmentEntry).sort()).toEqual(Object.keys(productEntry).sort());
  });

  it("includes each Durable Object class", () => {
    expect(Object.keys(developmentEntry)).toEqual(expect.arrayContaining(["AccountAgent", "RunShard", "OrderApi"]));
  });
});
