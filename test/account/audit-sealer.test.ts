import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getAgentByName } from "agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountAgent } from "../../src/account/account-agent";
import type { ChainHead } from "../../src/audit/chain";
import { verifyAuditChain } from "../../src/store/audit-chain";
import { insertFreshOrder } from "../helpers/fresh-orders";
import { connectClient } from "../helpers/mcp-client";
import { propose } from "../helpers/ops";
import { postOrder, type Receipt, readJson, uniqueRequestId, validOrder, warmUp } from "../helpers/orders";
import { ACME_TOKEN } from "../helpers/tokens";
import { waitFor } from "../helpers/wait-for";

// The account's object is the one sealer: every writer asks it to seal, and
// it records the head it reached in its own storage.

let acme: Client;
beforeAll(async () => {
  await warmUp();
  acme = await connectClient(ACME_TOKEN, "audit-sealer");
});
afterAll(async () => {
  await acme.close();
});

async function anchorOf(account: string): Promise<ChainHead | null> {
  const stub = await getAgentByName(env.ACCOUNT_AGENT, account);
  return runInDurableObject(stub, (instance: AccountAgent, state) => {
    void instance;
    return (
      state.storage.sql.exec<{ seq: number; hash: string }>("SELECT seq, hash FROM audit_anchor").toArray()[0] ?? null
    );
  });
}

async function sealOf(account: string, eventId: string): Promise<number | null> {
  const row = await env.DB.prepare(
    "SELECT s.seq FROM audit_seals s JOIN audit_events e USING (entry) WHERE e.account = ? AND e.event_id = ?",
  )
    .bind(account, eventId)
    .first<{ seq: number }>();
  return row?.seq ?? null;
}

/** Sealing happens after the writer has answered: read until it has, for a few seconds at most. */
const eventually = <T>(read: () => Promise<T>, done: (value: T) => boolean) => waitFor(read, done, 5_000, 25);

describe("the account's sealer", () => {
  it("seals on request, answers the head, and records it outside D1", async () => {
    const sealed = await env.ACCOUNT_AGENT.getByName("acme").sealAuditTrail({ account: "acme" });
    expect(sealed.ok).toBe(true);
    const head = sealed.ok ? sealed.value : null;
    expect(head?.seq).toBeGreaterThan(0);
    expect(await anchorOf("acme")).toEqual(head);
    const report = await verifyAuditChain(env.DB, "acme", head ? { anchors: [head] } : {});
    expect(report).toMatchObject({ ok: true, sealed: head?.seq });
  });

  it("refuses a caller of another account", async () => {
    const refused = await env.ACCOUNT_AGENT.getByName("acme").sealAuditTrail({ account: "globex" });
    expect(refused).toMatchObject({ ok: false, error: { code: "forbidden" } });
  });

  it("an intake order's event is sealed soon after the order is accepted, without anyone asking", async () => {
    const receipt = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("sealed"))));
    expect(
      await eventually(
        () => sealOf("acme", `${receipt.order_id}:received`),
        (seq) => seq !== null,
      ),
    ).not.toBeNull();
  });

  it("a proposal's event is sealed soon after it is created", async () => {
    const orderId = await insertFreshOrder({ exception: "fraud_review" });
    const proposal = await propose(acme, orderId);
    expect(
      await eventually(
        () => sealOf("acme", `${proposal.proposal_id}:proposed`),
        (seq) => seq !== null,
      ),
    ).not.toBeNull();
    expect((await verifyAuditChain(env.DB, "acme")).ok).toBe(true);
  });
});
