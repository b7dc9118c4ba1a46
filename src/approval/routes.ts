import { Hono, type Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { bearerToken, lookupToken } from "../auth/tokens";
import type { Approver, Config } from "../config/config";
import { statusOf, type AppError, type Result } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { readJsonBody, readLimitedText } from "../http/json-body";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { messagePage, queuePage, reviewPage, signInPage } from "./pages";
import { DecisionSchema } from "../proposals/schemas";
import { csrfMatches, openSession, readSession, SESSION_COOKIE, SESSION_MINUTES, type ApproverSession } from "../auth/approver-session";

/**
 * Approval belongs to the application. A human approver decides here, in the
 * browser (/approvals) or from a script (/api/approvals), with an approver
 * token. MCP tokens are refused on both, and no MCP tool reaches this code.
 */
const NO_APPROVERS: AppError = {
  code: "not_configured",
  message: 'no approver tokens are configured; set APPROVER_TOKENS with `wrangler secret put APPROVER_TOKENS` (value {"<token>":{"account":"acme","approver":"Avery"}})',
};

async function approverFor(config: Config, token: string): Promise<Result<Approver>> {
  const approver = await lookupToken(config.approverTokens, token);
  if (approver) return { ok: true, value: approver };
  const isMcpToken = (await lookupToken(config.mcpTokens, token)) !== undefined;
  return {
    ok: false,
    error: {
      code: "unauthorized",
      message: isMcpToken ? "MCP tokens cannot approve proposals; sign in with an approver token" : "that is not a valid approver token",
    },
  };
}

function agentFor(c: Context<AppEnv>, approver: Approver) {
  return c.env.ACCOUNT_AGENT.getByName(approver.account);
}

function baseUrl(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

// ---------------------------------------------------------------- browser app

const PAGE_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
};

function page(c: Context<AppEnv>, html: string, status: ContentfulStatusCode = 200): Response {
  return c.html(html, status, PAGE_HEADERS);
}

/** Only same-site form posts count; a cross-site page cannot drive an approver's browser. */
function isSameOriginPost(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  if (origin !== undefined) return origin === baseUrl(c);
  const site = c.req.header("sec-fetch-site");
  return site === undefined || site === "same-origin" || site === "none";
}

/** Redirect targets after sign-in stay inside the approval app. */
function safeNext(next: unknown): string {
  return typeof next === "string" && /^\/approvals(\/[A-Za-z0-9_\-%]*)?$/.test(next) ? next : "/approvals";
}

async function currentSession(c: Context<AppEnv>): Promise<ApproverSession | undefined> {
  return readSession(c.get("config"), getCookie(c, SESSION_COOKIE), new Date());
}

const MAX_FORM_BYTES = 16 * 1024;

/** The approval forms post urlencoded fields; anything else is refused readably, never a 500. */
async function readForm(request: Request): Promise<Result<URLSearchParams>> {
  const mediaType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/x-www-form-urlencoded") {
    return { ok: false, error: { code: "unsupported_media_type", message: "post the form as application/x-www-form-urlencoded" } };
  }
  const text = await readLimitedText(request, MAX_FORM_BYTES);
  return text.ok ? { ok: true, value: new URLSearchParams(text.value) } : text;
}

export const approvalPages = new Hono<AppEnv>();
approvalPages.use("*", requireConfig);
approvalPages.use("*", async (c, next) => {
  if (c.get("config").approverTokens.size === 0) return page(c, messagePage("Approvals are not configured", NO_APPROVERS.message), 503);
  await next();
});

approvalPages.get("/", async (c) => {
  const session = await currentSession(c);
  if (!session) return page(c, signInPage({ next: "/approvals" }));
  const pending = await agentFor(c, session.approver).pendingProposals(session.approver);
  if (!pending.ok) return page(c, messagePage("Something went wrong", pending.error.message), statusOf(pending.error));
  return page(c, queuePage({ proposals: pending.value, approver: session.approver.approver, csrfToken: session.csrfToken }));
});

approvalPages.get("/sign-in", (c) => page(c, signInPage({ next: safeNext(c.req.query("next")) })));

approvalPages.post("/sign-in", async (c) => {
  if (!isSameOriginPost(c)) return page(c, messagePage("Refused", "sign-in must come from this site"), 403);
  const form = await readForm(c.req.raw);
  if (!form.ok) return page(c, messagePage("Refused", form.error.message), statusOf(form.error));
  const next = safeNext(form.value.get("next"));
  const token = form.value.get("token")?.trim() ?? "";
  const config = c.get("config");
  const approver = token === "" ? undefined : await approverFor(config, token);
  if (!approver?.ok) {
    const message = approver ? approver.error.message : "enter your approver token";
    return page(c, signInPage({ next, error: message }), 401);
  }
  const { cookieValue } = await openSession(config, approver.value, new Date());
  setCookie(c, SESSION_COOKIE, cookieValue, {
    path: "/approvals",
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: SESSION_MINUTES * 60,
  });
  return c.redirect(next, 303);
});

approvalPages.post("/sign-out", async (c) => {
  const session = await currentSession(c);
  const form = await readForm(c.req.raw);
  if (session && form.ok && isSameOriginPost(c) && csrfMatches(session, form.value.get("csrf") ?? undefined)) {
    deleteCookie(c, SESSION_COOKIE, { path: "/approvals" });
  }
  return c.redirect("/approvals", 303);
});

approvalPages.get("/:id", async (c) => {
  const proposalId = c.req.param("id");
  const session = await currentSession(c);
  if (!session) return page(c, signInPage({ next: `/approvals/${encodeURIComponent(proposalId)}` }));
  const review = await agentFor(c, session.approver).reviewProposal(session.approver, proposalId);
  const who = { approver: session.approver.approver, csrfToken: session.csrfToken };
  if (!review.ok) return page(c, messagePage("Proposal not found", review.error.message, who), statusOf(review.error));
  const decided = c.req.query("decided");
  const notice = decided === "approve" || decided === "reject" ? `Recorded: ${decided === "approve" ? "approved" : "rejected"}.` : undefined;
  return page(c, reviewPage({ ...review.value, ...who, ...(notice ? { notice } : {}) }));
});

approvalPages.post("/:id/decision", async (c) => {
  const proposalId = c.req.param("id");
  const session = await currentSession(c);
  if (!session) return page(c, signInPage({ next: `/approvals/${encodeURIComponent(proposalId)}`, error: "your session ended; sign in again" }), 401);
  const form = await readForm(c.req.raw);
  if (!form.ok) return page(c, messagePage("Refused", form.error.message), statusOf(form.error));
  if (!isSameOriginPost(c) || !csrfMatches(session, form.value.get("csrf") ?? undefined)) {
    return page(c, messagePage("Refused", "this form did not come from the approval page; reload it and try again"), 403);
  }
  const agent = agentFor(c, session.approver);
  const who = { approver: session.approver.approver, csrfToken: session.csrfToken };
  const decision = DecisionSchema.safeParse({ decision: form.value.get("decision"), reason: form.value.get("reason") ?? "" });
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

// ----------------------------------------------------------- scripted API

const WWW_AUTHENTICATE = 'Bearer realm="order-ops-edge approvals"';

async function apiApprover(c: Context<AppEnv>): Promise<Result<Approver>> {
  const config = c.get("config");
  if (config.approverTokens.size === 0) return { ok: false, error: NO_APPROVERS };
  const token = bearerToken(c.req.header("authorization"));
  if (token === undefined) return { ok: false, error: { code: "unauthorized", message: "send Authorization: Bearer <approver token>" } };
  return approverFor(config, token);
}

function apiError(c: Context<AppEnv>, error: AppError): Response {
  return errorResponse(c, error, error.code === "unauthorized" ? { "WWW-Authenticate": WWW_AUTHENTICATE } : undefined);
}

export const approvalApi = new Hono<AppEnv>();
approvalApi.use("*", requireConfig);

approvalApi.get("/", async (c) => {
  const approver = await apiApprover(c);
  if (!approver.ok) return apiError(c, approver.error);
  const pending = await agentFor(c, approver.value).pendingProposals(approver.value);
  return pending.ok ? c.json({ proposals: pending.value }) : apiError(c, pending.error);
});
approvalApi.all("/", methodNotAllowed(["GET"]));

approvalApi.get("/:id", async (c) => {
  const approver = await apiApprover(c);
  if (!approver.ok) return apiError(c, approver.error);
  const review = await agentFor(c, approver.value).reviewProposal(approver.value, c.req.param("id"));
  return review.ok ? c.json({ proposal: review.value.proposal }) : apiError(c, review.error);
});

approvalApi.post("/:id", async (c) => {
  const approver = await apiApprover(c);
  if (!approver.ok) return apiError(c, approver.error);
  const decision = await readJsonBody(c.req.raw, DecisionSchema, 16 * 1024);
  if (!decision.ok) return apiError(c, decision.error);
  const decided = await agentFor(c, approver.value).decideProposal(approver.value, c.req.param("id"), decision.value);
  return decided.ok ? c.json({ proposal: decided.value }) : apiError(c, decided.error);
});
approvalApi.all("/:id", methodNotAllowed(["GET", "POST"]));
