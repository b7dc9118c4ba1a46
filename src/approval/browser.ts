import { Hono, type Context } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { approverForToken, NO_APPROVERS_MESSAGE } from "../auth/approver";
import { closeSession, csrfMatches, currentSession, openSession, type ApproverSession } from "../auth/approver-session";
import { statusOf, type AppError } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { limitedBody } from "../http/json-body";
import { sameOriginForms } from "../http/same-origin-forms";
import { DecisionSchema } from "../proposals/decision";
import { d1ApproverSessions } from "../store/approver-sessions";
import { messagePage, queuePage, reviewPage, signInPage, type Html } from "./pages";

/**
 * The approval app in the browser (/approvals). A human approver signs in
 * with an approver token and decides with a reason. MCP tokens are refused,
 * and no MCP tool reaches this code.
 */
export const approvalPages = new Hono<AppEnv>();

const MAX_FORM_BYTES = 16 * 1024;

function page(c: Context<AppEnv>, body: Html, status: ContentfulStatusCode = 200): Response | Promise<Response> {
  return c.html(body, status, { "Cache-Control": "no-store" });
}

/** 403 for a post that did not come from our own pages. */
function refusedPage(message: string) {
  return (c: Context<AppEnv>) => page(c, messagePage("Refused", message), 403);
}

/** 413 or 415: a form body we will not read. */
function refusedBody(c: Context<AppEnv>, error: AppError) {
  return page(c, messagePage("Refused", error.message), statusOf(error));
}

function agentFor(c: Context<AppEnv>, session: ApproverSession) {
  return c.env.ACCOUNT_AGENT.getByName(session.approver.account);
}

function sessions(c: Context<AppEnv>) {
  return d1ApproverSessions(c.env.DB);
}

/** Redirect targets after sign-in stay inside the approval app. */
function safeNext(next: unknown): string {
  return typeof next === "string" && /^\/approvals(\/[A-Za-z0-9_\-%]*)?$/.test(next) ? next : "/approvals";
}

async function formOf(c: Context<AppEnv>): Promise<URLSearchParams> {
  return new URLSearchParams(await c.req.text());
}

approvalPages.use("*", requireConfig);
approvalPages.use(
  "*",
  secureHeaders({
    // No script at all: the pages are plain forms.
    contentSecurityPolicy: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
    xFrameOptions: "DENY",
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
    referrerPolicy: "same-origin",
  }),
);
approvalPages.use("*", async (c, next) => {
  if (c.get("config").approverTokens.size === 0) return page(c, messagePage("Approvals are not configured", NO_APPROVERS_MESSAGE), 503);
  await next();
});

approvalPages.get("/", async (c) => {
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: "/approvals" }));
  const pending = await agentFor(c, session).pendingProposals(session.approver);
  if (!pending.ok) return page(c, messagePage("Something went wrong", pending.error.message), statusOf(pending.error));
  return page(c, queuePage({ proposals: pending.value, approver: session.approver.approver, csrfToken: session.csrfToken }));
});

approvalPages.get("/sign-in", (c) => page(c, signInPage({ next: safeNext(c.req.query("next")) })));

approvalPages.post("/sign-in", sameOriginForms(refusedPage("sign-in must come from this site")), limitedBody("form", MAX_FORM_BYTES, refusedBody), async (c) => {
  const form = await formOf(c);
  const next = safeNext(form.get("next"));
  const token = form.get("token")?.trim() ?? "";
  const approver = token === "" ? undefined : await approverForToken(c.get("config"), token);
  if (!approver?.ok) return page(c, signInPage({ next, error: approver ? approver.error.message : "enter your approver token" }), 401);
  await openSession(c, sessions(c), approver.value);
  return c.redirect(next, 303);
});

// Signing out never shows an error: whatever happens, the browser lands on the app.
const backToApp = (c: Context<AppEnv>) => c.redirect("/approvals", 303);

approvalPages.post("/sign-out", sameOriginForms(backToApp), limitedBody("form", MAX_FORM_BYTES, backToApp), async (c) => {
  const session = await currentSession(c, sessions(c));
  if (session && csrfMatches(session, (await formOf(c)).get("csrf") ?? undefined)) await closeSession(c, sessions(c), session);
  return backToApp(c);
});

approvalPages.get("/:id", async (c) => {
  const proposalId = c.req.param("id");
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: `/approvals/${encodeURIComponent(proposalId)}` }));
  const review = await agentFor(c, session).reviewProposal(session.approver, proposalId);
  const who = { approver: session.approver.approver, csrfToken: session.csrfToken };
  if (!review.ok) return page(c, messagePage("Proposal not found", review.error.message, who), statusOf(review.error));
  const decided = c.req.query("decided");
  const notice = decided === "approve" || decided === "reject" ? `Recorded: ${decided === "approve" ? "approved" : "rejected"}.` : undefined;
  return page(c, reviewPage({ ...review.value, ...who, ...(notice ? { notice } : {}) }));
});

const NOT_FROM_OUR_PAGE = "this form did not come from the approval page; reload it and try again";

approvalPages.post("/:id/decision", sameOriginForms(refusedPage(NOT_FROM_OUR_PAGE)), limitedBody("form", MAX_FORM_BYTES, refusedBody), async (c) => {
  const proposalId = c.req.param("id");
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: `/approvals/${encodeURIComponent(proposalId)}`, error: "your session ended; sign in again" }), 401);
  const form = await formOf(c);
  if (!csrfMatches(session, form.get("csrf") ?? undefined)) return refusedPage(NOT_FROM_OUR_PAGE)(c);
  const agent = agentFor(c, session);
  const who = { approver: session.approver.approver, csrfToken: session.csrfToken };
  const decision = DecisionSchema.safeParse({ decision: form.get("decision"), reason: form.get("reason") ?? "" });
  let problem: AppError;
  if (decision.success) {
    const outcome = await agent.decideProposal(session.approver, proposalId, decision.data);
    if (outcome.ok) return c.redirect(`/approvals/${encodeURIComponent(proposalId)}?decided=${decision.data.decision}`, 303);
    problem = outcome.error;
  } else {
    problem = { code: "validation_failed", message: decision.error.issues.map((i) => i.message).join("; ") };
  }
  const review = await agent.reviewProposal(session.approver, proposalId);
  if (!review.ok) return page(c, messagePage("Proposal not found", review.error.message, who), statusOf(review.error));
  return page(c, reviewPage({ ...review.value, ...who, error: problem.message }), statusOf(problem));
});
