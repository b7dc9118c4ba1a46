import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectSafePage, expectSignInForm, formPostedFrom, get, page, signIn } from "../helpers/approval-pages";
import { connectClient } from "../helpers/mcp-client";
import { proposalFor } from "../helpers/ops";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// Signing in to the browser approval app: a proposal link shows nothing until
// an approver signs in with an approver token, and the session cookie it gets
// is HttpOnly, SameSite=Strict and holds no token.

let acme: Client;

beforeAll(async () => {
  acme = await connectClient(ACME_TOKEN, "approval-pages");
});
afterAll(async () => {
  await acme.close();
});

describe("signed out", () => {
  it("a proposal link shows the sign-in form and nothing about the proposal or the order", async () => {
    const { orderId, proposal } = await proposalFor(acme, "payment_declined_inventory_held");
    const p = await page(await get(`/approvals/${proposal.proposal_id}`));
    expect(p.status).toBe(200);
    expectSafePage(p);
    expectSignInForm(p.html, `/approvals/${proposal.proposal_id}`);
    for (const secret of [
      orderId,
      "Release held stock",
      "Release the held stock",
      "$66.00",
      "Maya Lindqvist",
      "Test Recipient",
      "Springfield",
      "Payment failed",
      "payment_failed",
      proposal.expires_at,
      "High risk",
      "csrf",
    ]) {
      expect(p.html).not.toContain(secret);
    }
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("the queue shows the sign-in form too", async () => {
    const p = await page(await get("/approvals"));
    expect(p.status).toBe(200);
    expectSignInForm(p.html, "/approvals");
  });
});

describe("sign-in", () => {
  it("a wrong token: 401 sign-in page with the error, no cookie", async () => {
    const p = await page(await signIn("definitely-not-a-token", "/approvals"));
    expect(p.status).toBe(401);
    expectSafePage(p);
    expect(p.html).toContain('role="alert">that is not a valid approver token<');
    expectSignInForm(p.html, "/approvals");
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("an MCP token: 401 saying MCP tokens cannot approve", async () => {
    const response = await signIn(ACME_TOKEN, "/approvals");
    const p = await page(response);
    expect(p.status).toBe(401);
    expect(p.html).toContain("MCP tokens cannot approve proposals; sign in with an approver token");
    expect(p.headers.getSetCookie()).toEqual([]);
  });

  it("an empty token: 401 asking for one", async () => {
    const p = await page(await signIn("   ", "/approvals"));
    expect(p.status).toBe(401);
    expect(p.html).toContain("enter your approver token");
  });

  it("the approver token: 303 to next with an HttpOnly, SameSite=Strict session cookie for the whole site (approvals and runs)", async () => {
    const { proposal } = await proposalFor(acme, "payment_declined_inventory_held");
    const next = `/approvals/${proposal.proposal_id}`;
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(next);
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const attributes = (cookies[0] ?? "").split(";").map((a) => a.trim());
    // A random id and its hono/cookie signature (base64, URL-encoded), nothing else.
    expect(decodeURIComponent(attributes[0] ?? "")).toMatch(/^approver_session=[0-9a-f-]{36}\.[A-Za-z0-9+/]{43}=$/);
    expect(attributes).toContain("Path=/");
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Strict");
    expect(attributes).toContain("Max-Age=1800");
    // Plain http (local dev) cannot carry a Secure cookie.
    expect(attributes).not.toContain("Secure");
    // The cookie does not contain the token.
    expect(cookies[0]).not.toContain(ACME_APPROVER_TOKEN);
  });

  it.each(["/approvals/prop_x", "/runs/R-abc-12"])("next=%j inside the app: redirect there", async (next) => {
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(next);
  });

  it.each([
    "https://evil.example/phish",
    "//evil.example",
    "/approvalsx",
    "/api/approvals",
    "javascript:alert(1)",
    "/runs",
    "/runs/",
    "/runsx/R-1",
    "/runs/R-1/../../mcp",
    "/mcp",
  ])("next=%j outside the approval app and run pages: redirect to /approvals", async (next) => {
    const response = await signIn(ACME_APPROVER_TOKEN, next);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/approvals");
  });

  it("a sign-in posted from another site is refused", async () => {
    const response = await signIn(
      ACME_APPROVER_TOKEN,
      "/approvals",
      formPostedFrom("https://evil.example", "cross-site"),
    );
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
    const fromOpaqueOrigin = await signIn(ACME_APPROVER_TOKEN, "/approvals", formPostedFrom("null", "cross-site"));
    expect(fromOpaqueOrigin.status).toBe(403);
  });
});
