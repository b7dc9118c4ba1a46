import { Hono } from "hono";
import { currentSession } from "../../auth/approver-session";
import { statusOf } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { methodNotAllowed } from "../../http/respond";
import { messagePage, signInPage } from "../pages";
import { runPage } from "./run-page";
import { browserPageMiddleware, page, sessions, signedIn } from "../shell";

/**
 * The run page (/runs/<run_id>): a traffic run's live chart, behind the
 * approval app's sign-in. The run is read from the approver's own account
 * object, so another account's run id answers exactly like an unknown one.
 */
export const runPages = new Hono<AppEnv>();

/** Said for an unknown id and for another account's alike; it names neither. */
const RUN_NOT_FOUND = "There is no traffic run with this id in your account. Runs are visible only to the account that started them.";

runPages.use("*", ...browserPageMiddleware);

runPages.get("/:id", async (c) => {
  const runId = c.req.param("id");
  const session = await currentSession(c, sessions(c));
  if (!session) return page(c, signInPage({ next: `/runs/${encodeURIComponent(runId)}` }));
  const approver = session.approver;
  const run = await c.env.ACCOUNT_AGENT.getByName(approver.account).runForApprover(approver, runId);
  if (!run.ok) {
    const notFound = run.error.code === "not_found";
    const body = messagePage(notFound ? "Run not found" : "Something went wrong", notFound ? RUN_NOT_FOUND : run.error.message, signedIn(session));
    return page(c, body, statusOf(run.error));
  }
  return page(c, runPage({ run: run.value, now: new Date(), ...signedIn(session) }));
});
runPages.all("/:id", methodNotAllowed(["GET"]));
