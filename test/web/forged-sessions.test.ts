import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProposalView } from "../../src/proposals/proposal-schemas";
import {
  csrfOf,
  expectSignInForm,
  get,
  page,
  postForm,
  sessionFor,
  storedSessionCookie,
} from "../helpers/approval-pages";
import { connectClient } from "../helpers/mcp-client";
import { ACME_APPROVER, getProposal, proposalFor } from "../helpers/ops";
import { countAuditEvents } from "../helpers/rows";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_APPROVER_TOKEN } from "../helpers/tokens";

// Approval sessions that must not work: a tampered, hand-made or expired
// cookie reads as signed out, another account's approver sees a 404, and
// sign-out clears the cookie.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-pages");
});
afterAll(async () => {
  await acme.close();
});

describe("forged and foreign sessions", () => {
  let proposal: ProposalView;
  let orderId: string;
  let cookie: string;

  beforeAll(async () => {
    ({ orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held"));
    cookie = await sessionFor(ACME_APPROVER_TOKEN);
  });

  function tamper(pair: string, index: number): string {
    const chars = [...pair];
    chars[index] = chars[index] === "A" ? "B" : "A";
    return chars.join("");
  }

  it("control: the untouched cookie opens the review page", async () => {
    const p = await page(await get(`/approvals/${proposal.proposal_id}`, cookie));
    expect(p.html).toContain(orderId);
  });

  it("a cookie with one character changed (payload or signature) is treated as signed out", async () => {
    const [name, value = ""] = cookie.split("=", 2);
    const dot = value.indexOf(".");
    const start = `${name}=`.length;
    for (const index of [start + 2, start + Math.floor(dot / 2), start + dot + 5, start + dot + 20]) {
      const forged = tamper(cookie, index);
      expect(forged).not.toBe(cookie);
      const p = await page(await get(`/approvals/${proposal.proposal_id}`, forged));
      expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
      expect(p.html).not.toContain(orderId);
    }
  });

  it("a hand-made cookie claiming to be the approver is treated as signed out, and cannot decide", async () => {
    const payload = btoa(
      JSON.stringify({
        account: "acme",
        approver: ACME_APPROVER,
        expires: Math.floor(Date.now() / 1000) + 600,
        nonce: "n",
      }),
    )
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const forged = `approver_session=${payload}.${"A".repeat(43)}`;
    const p = await page(await get(`/approvals/${proposal.proposal_id}`, forged));
    expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
    const decision = await postForm(
      `/approvals/${proposal.proposal_id}/decision`,
      { decision: "approve", reason: "forged", csrf: "x" },
      { cookie: forged },
    );
    expect(decision.status).toBe(401);
    expect(await decision.text()).toContain("your session ended; sign in again");
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
  });

  it("a correctly signed but expired session is signed out (control: a current one from the same signer works)", async () => {
    const ok = await page(await get(`/approvals/${proposal.proposal_id}`, await storedSessionCookie(new Date())));
    expect(ok.html).toContain(orderId);
    const expired = await page(
      await get(`/approvals/${proposal.proposal_id}`, await storedSessionCookie(new Date(Date.now() - 31 * 60_000))),
    );
    expectSignInForm(expired.html, `/approvals/${proposal.proposal_id}`);
  });

  it("the globex approver's session cannot open or decide an acme proposal: 404", async () => {
    const globexCookie = await sessionFor(GLOBEX_APPROVER_TOKEN);
    const view = await page(await get(`/approvals/${proposal.proposal_id}`, globexCookie));
    expect(view.status).toBe(404);
    expect(view.html).toContain("Proposal not found");
    expect(view.html).not.toContain(orderId);

    const queue = await page(await get("/approvals", globexCookie));
    const csrf = csrfOf(queue.html);
    const decision = await page(
      await postForm(
        `/approvals/${proposal.proposal_id}/decision`,
        { decision: "approve", reason: "not mine to approve", csrf },
        { cookie: globexCookie },
      ),
    );
    expect(decision.status).toBe(404);
    expect((await getProposal(acme, proposal.proposal_id)).status).toBe("pending_approval");
    expect(await countAuditEvents("acme", orderId, "proposal_approved")).toBe(0);
  });

  it("sign-out clears the cookie", async () => {
    const queue = await page(await get("/approvals", cookie));
    const response = await postForm("/approvals/sign-out", { csrf: csrfOf(queue.html) }, { cookie });
    expect(response.status).toBe(303);
    const [cleared] = response.headers.getSetCookie();
    expect(cleared).toMatch(/^approver_session=;/);
    expect(cleared).toContain("Max-Age=0");
    expect(cleared).toContain("Path=/");
  });
});
