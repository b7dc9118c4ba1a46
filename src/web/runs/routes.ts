/**
 * The run page (/runs/<run_id>): a traffic run's live chart, behind the
 * approval app's sign-in. The run is read from the approver's own account
 * object, so another account's run id answers exactly like an unknown one.
 */
import { type Context, Hono } from "hono";
import type { AccountAgent } from "../../account/account-agent";
import { type ApproverSession, currentSession } from "../../auth/approver-session";
import { type AppError, type Result, statusOf } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { methodNotAllowed } from "../../http/respond";
import { exportOf, INTERVALS_CSV_HEADER, intervalCsvLine } from "../../runs/export";
import { messagePage, signInPage } from "../pages";
import { browserPageMiddleware, page, sessions, signedIn } from "../shell";
import { runPage } from "./run-page";
import { searchPage } from "./search-page";

export const runPages = new Hono<AppEnv>();

/** Said for an unknown id and for another account's alike; it names neither. */
const RUN_NOT_FOUND =
  "There is no traffic run with this id in your account. Runs are visible only to the account that started them.";
const SEARCH_NOT_FOUND =
  "There is no capacity search with this id in your account. Searches are visible only to the account that started them.";

runPages.use("*", ...browserPageMiddleware);

/** A page for a failed read: another account's run reads exactly like an unknown one. */
function failurePage(
  c: Context<AppEnv>,
  session: ApproverSession,
  error: AppError,
  what: "Run" | "Capacity search" = "Run",
): Response | Promise<Response> {
  const notFound = error.code === "not_found";
  const body = messagePage(
    notFound ? `${what} not found` : "Something went wrong",
    notFound ? (what === "Run" ? RUN_NOT_FOUND : SEARCH_NOT_FOUND) : error.message,
    signedIn(session),
  );
  return page(c, body, statusOf(error));
}

/**
 * One run route: signed out, the sign-in form that comes back to the run;
 * signed in, `read` from the approver's own account object, whose failure
 * (another account's run included) is a page that names nothing.
 */
function runRoute<T>(
  read: (
    agent: DurableObjectStub<AccountAgent>,
    approver: ApproverSession["approver"],
    runId: string,
  ) => Promise<Result<T>>,
  answer: (c: Context<AppEnv>, value: T, session: ApproverSession, runId: string) => Response | Promise<Response>,
) {
  return async (c: Context<AppEnv>) => {
    const runId = c.req.param("id") ?? "";
    const session = await currentSession(c, sessions(c));
    if (!session) return page(c, signInPage({ next: `/runs/${encodeURIComponent(runId)}` }));
    const result = await read(c.env.ACCOUNT_AGENT.getByName(session.approver.account), session.approver, runId);
    if (!result.ok) return failurePage(c, session, result.error);
    return answer(c, result.value, session, runId);
  };
}

/** A capacity search: latency against rate, one point per step; its steps link to their own run pages. */
runPages.get("/searches/:id", async (c) => {
  const searchId = c.req.param("id");
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: `/runs/searches/${encodeURIComponent(searchId)}` }));
  const agent = c.env.ACCOUNT_AGENT.getByName(session.approver.account);
  const search = await agent.searchForApprover(session.approver, searchId);
  if (!search.ok) return failurePage(c, session, search.error, "Capacity search");
  return page(c, searchPage({ search: search.value, now: new Date(), ...signedIn(session) }));
});

runPages.get(
  "/:id",
  runRoute(
    (agent, approver, runId) => agent.runForApprover(approver, runId),
    (c, run, session) => page(c, runPage({ run, now: new Date(), ...signedIn(session) })),
  ),
);

/** The whole result: the summary with its run-wide histograms, as the synthetic://runs/{run_id} resource gives it. */
runPages.get(
  "/:id/export.json",
  runRoute(
    (agent, approver, runId) => agent.trafficRunRecord(approver, runId),
    (c, run, _session, runId) => {
      c.header("content-disposition", `attachment; filename="${fileName(runId)}.json"`);
      return c.json(exportOf(run.summary, run.record));
    },
  ),
);

/** Every interval, oldest first, one CSV row each. */
runPages.get(
  "/:id/intervals.csv",
  runRoute(
    (agent, approver, runId) => agent.trafficRunIntervals(approver, runId),
    (c, intervals, _session, runId) => {
      c.header("content-type", "text/csv; charset=utf-8");
      c.header("content-disposition", `attachment; filename="${fileName(runId)}-intervals.csv"`);
      return c.body(INTERVALS_CSV_HEADER + intervals.map(intervalCsvLine).join(""));
    },
  ),
);

/** Run ids are ours (R-<time>-<hex>), but a file name should never carry what a URL can. */
function fileName(runId: string): string {
  return `run-${runId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

runPages.all("/:id", methodNotAllowed(["GET"]));
runPages.all("/:id/*", methodNotAllowed(["GET"]));
