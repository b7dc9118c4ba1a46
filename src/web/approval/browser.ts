/**
 * The approval app in the browser (/approvals). A human approver signs in
 * with an approver token and decides with a reason. MCP tokens are refused,
 * and no MCP tool reaches this code.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { z } from "zod/v4";
import { approverForToken } from "../../auth/approver";
import {
  type ApproverSession,
  closeSession,
  csrfMatches,
  currentSession,
  openSession,
} from "../../auth/approver-session";
import { type AppError, statusOf } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import type { WithHolder } from "../../http/credential-middleware";
import { validForm } from "../../http/form-fields";
import { limitedBody } from "../../http/json-body";
import { sameOriginForms } from "../../http/same-origin-forms";
import type { OrderRecord } from "../../orders/order-record";
import { DecisionSchema } from "../../proposals/decision";
import type { ProposalView } from "../../proposals/proposal-schemas";
import { D1AccountOrders } from "../../store/account-orders";
import { accountReads } from "../../store/read-session";
import { exportAuditTrail, parseExportQuery } from "../audit/export-routes";
import { messagePage, signInPage } from "../pages";
import { browserPageMiddleware, page, safeNext, sessions, signedIn } from "../shell";
import { queuePage } from "./queue-page";
import { reviewPage } from "./review-page";

export const approvalPages = new Hono<AppEnv>();

const MAX_FORM_BYTES = 16 * 1024;

/** 403 for a post that did not come from our own pages. */
function refusedPage(message: string) {
  return (c: Context) => page(c, messagePage("Refused", message), 403);
}

/** 413, 415 or 422: a form body we will not read. */
function refusedBody(c: Context, error: AppError) {
  return page(c, messagePage("Refused", error.message), statusOf(error));
}

function agentFor(c: { readonly env: Env }, session: ApproverSession) {
  return c.env.ACCOUNT_AGENT.getByName(session.approver.account);
}

/** Where a signed-in approver's post goes on: the route sees the session as c.get("holder"). */
type SignedInPost = WithHolder<ApproverSession>;
type Answer = (c: Context<SignedInPost>) => Response | Promise<Response>;

/** The CSRF token a signed-in post carries; signedInPost holds it against the session. */
const CsrfForm = z.object({ csrf: z.string().optional() });

/**
 * A post from the signed-in approver's own page: a live session, and the
 * form's CSRF token (read by validForm(CsrfForm) before it) matching that
 * session's. `signedOut` and `forged` answer otherwise.
 */
function signedInPost(
  signedOut: Answer,
  forged: Answer,
): MiddlewareHandler<SignedInPost, string, { out: { form: z.output<typeof CsrfForm> } }> {
  return async (c, next) => {
    const session = await currentSession(c, sessions(c));
    if (!session) return signedOut(c);
    if (!csrfMatches(session, c.req.valid("form").csrf)) return forged(c);
    c.set("holder", session);
    await next();
  };
}

/**
 * The orders behind the listed proposals, read straight from D1 (scoped to
 * the approver's account, like every read), for the amount each would move.
 * Through a read session that starts at the primary: the page has just asked
 * the account's object, which may have written (store/read-session.ts).
 */
async function ordersOf(
  c: Context<AppEnv>,
  session: ApproverSession,
  proposals: readonly ProposalView[],
): Promise<Map<string, OrderRecord>> {
  const orders = new D1AccountOrders(accountReads(c.env, session.approver.account), session.approver.account);
  const records = await Promise.all([...new Set(proposals.map((p) => p.order_id))].map((id) => orders.record(id)));
  return new Map(records.filter((r): r is OrderRecord => r !== null).map((r) => [r.order_id, r]));
}

approvalPages.use("*", ...browserPageMiddleware);

approvalPages.get("/", async (c) => {
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: "/approvals" }));
  const pending = await agentFor(c, session).pendingProposals(session.approver);
  if (!pending.ok) return page(c, messagePage("Something went wrong", pending.error.message), statusOf(pending.error));
  return page(
    c,
    queuePage({
      proposals: pending.value,
      orders: await ordersOf(c, session, pending.value),
      now: new Date(),
      ...signedIn(session),
    }),
  );
});

approvalPages.get("/sign-in", (c) => page(c, signInPage({ next: safeNext(c.req.query("next")) })));

const SignInForm = z.object({ next: z.string().optional(), token: z.string().trim().default("") });

approvalPages.post(
  "/sign-in",
  sameOriginForms(refusedPage("sign-in must come from this site")),
  limitedBody("form", MAX_FORM_BYTES, refusedBody),
  validForm(SignInForm, refusedBody),
  async (c) => {
    const form = c.req.valid("form");
    const next = safeNext(form.next);
    const approver = form.token === "" ? undefined : await approverForToken(c.get("config"), form.token);
    if (!approver?.ok)
      return page(c, signInPage({ next, error: approver ? approver.error.message : "enter your approver token" }), 401);
    await openSession(c, sessions(c), approver.value);
    return c.redirect(next, 303);
  },
);

// Signing out never shows an error: whatever happens, the browser lands on the app.
const backToApp = (c: Context) => c.redirect("/approvals", 303);

approvalPages.post(
  "/sign-out",
  sameOriginForms(backToApp),
  limitedBody("form", MAX_FORM_BYTES, backToApp),
  validForm(CsrfForm, backToApp),
  signedInPost(backToApp, backToApp),
  async (c) => {
    await closeSession(c, sessions(c), c.get("holder"));
    return backToApp(c);
  },
);

/**
 * The queue page's "Export audit trail" form: the same download as
 * GET /api/audit, on the approver's session instead of a bearer token. Before
 * /:id, so "audit" is never read as a proposal id. A read, so no CSRF token:
 * the session cookie is SameSite=Strict, and a token in a GET URL would end up
 * in the browser's history.
 */
approvalPages.get("/audit", async (c) => {
  const session = await currentSession(c, sessions(c));
  // Back to the queue after sign-in, where the form is, rather than straight into a download.
  if (!session) return page(c, signInPage({ next: "/approvals" }));
  // A form sends its empty fields as "": for the export they mean "no limit".
  const fields = Object.fromEntries(Object.entries(c.req.query()).filter(([, value]) => value.trim() !== ""));
  const query = parseExportQuery(fields);
  const exported = query.ok ? await exportAuditTrail(c.env, session.approver, query.value) : query;
  if (exported.ok) return exported.value;
  return page(
    c,
    messagePage("The audit trail was not exported", exported.error.message, signedIn(session)),
    statusOf(exported.error),
  );
});

approvalPages.get("/:id", async (c) => {
  const proposalId = c.req.param("id");
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: `/approvals/${encodeURIComponent(proposalId)}` }));
  const review = await agentFor(c, session).reviewProposal(session.approver, proposalId);
  const who = signedIn(session);
  if (!review.ok) return page(c, messagePage("Proposal not found", review.error.message, who), statusOf(review.error));
  // After a decision the browser lands here with ?decided=…; the page's next step already answers it.
  return page(c, reviewPage({ ...review.value, ...who, now: new Date() }));
});

const NOT_FROM_OUR_PAGE = "this form did not come from the approval page; reload it and try again";

/** A missing reason reads as an empty one, which the schema refuses with its own message. */
const DecisionForm = DecisionSchema.extend({ reason: DecisionSchema.shape.reason.prefault("") });

const proposalPath = (c: Context) => `/approvals/${encodeURIComponent(c.req.param("id") ?? "")}`;

/** The proposal's page again, with the problem that stopped the decision. */
async function reviewAgain(c: Context<SignedInPost>, problem: AppError): Promise<Response> {
  const session = c.get("holder");
  const who = signedIn(session);
  const review = await agentFor(c, session).reviewProposal(session.approver, c.req.param("id") ?? "");
  if (!review.ok) return page(c, messagePage("Proposal not found", review.error.message, who), statusOf(review.error));
  return page(c, reviewPage({ ...review.value, ...who, now: new Date(), error: problem.message }), statusOf(problem));
}

approvalPages.post(
  "/:id/decision",
  sameOriginForms(refusedPage(NOT_FROM_OUR_PAGE)),
  limitedBody("form", MAX_FORM_BYTES, refusedBody),
  validForm(CsrfForm, refusedBody),
  signedInPost(
    (c) => page(c, signInPage({ next: proposalPath(c), error: "your session ended; sign in again" }), 401),
    refusedPage(NOT_FROM_OUR_PAGE),
  ),
  validForm(DecisionForm, reviewAgain),
  async (c) => {
    const session = c.get("holder");
    const { decision, reason } = c.req.valid("form");
    const outcome = await agentFor(c, session).decideProposal(session.approver, c.req.param("id"), {
      decision,
      reason,
    });
    if (outcome.ok) return c.redirect(`${proposalPath(c)}?decided=${decision}`, 303);
    return reviewAgain(c, outcome.error);
  },
);
