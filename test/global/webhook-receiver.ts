// Runs in Node before the Workers-runtime tests: starts the local webhook
// receiver (scripts/lib/webhook-receiver.ts) and hands its address and the
// secrets it verifies with to the tests, and to the Worker's own bindings
// (vitest.config.ts), through vitest's provide/inject. Deliveries go to this
// machine, never the internet.
import type { TestProject } from "vitest/node";
import { startWebhookReceiver } from "../../scripts/lib/webhook-receiver.ts";

/**
 * Test values, not secrets: one per destination, so a delivery signed with the
 * wrong one fails. One of each kind: approvals a Standard Webhooks secret
 * (whsec_ and a base64 key), downstream one from before those, used as written.
 */
const SECRETS = {
  approvals: "whsec_YXBwcm92YWxzLXdlYmhvb2stdGVzdC1rZXktMzItYnk=",
  downstream: "downstream-webhook-test-secret",
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = await startWebhookReceiver(SECRETS);
  project.provide("webhookReceiver", { url: receiver.url, secrets: SECRETS });
  return () => receiver.close();
}
