// Runs in Node before the Workers-runtime tests: starts the second local order
// API (scripts/lib/order-api-server.ts) and hands its address and token to the
// tests through vitest's provide/inject, so ORDER_API_URL is tested against a
// real HTTP server on this machine and never the internet.
import type { TestProject } from "vitest/node";
import { startOrderApiServer } from "../../scripts/lib/order-api-server.ts";

/** The bearer token the second API wants; a test value, not a secret. */
const SECOND_API_TOKEN = "second-api-test-token";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startOrderApiServer(SECOND_API_TOKEN);
  project.provide("secondOrderApi", { url: server.url, token: SECOND_API_TOKEN });
  return () => server.close();
}
