import { Hono, type Context } from "hono";
import { z } from "zod/v4";
import { bearerToken, lookupToken } from "../auth/tokens";
import type { Approver } from "../config/config";
import { fail, ok, type AppError, type Result } from "../core/errors";
import { describeIssues } from "../core/zod-issues";
import type { AppEnv } from "../http/app-env";
import { requireConfig } from "../http/config-middleware";
import { errorResponse, methodNotAllowed } from "../http/respond";
import { exportSealedEvents, type ExportedEvent, type ExportFilter } from "../store/audit-export";
import { csvHeader, csvLine, ndjsonLine } from "./audit-format";

/**
 * GET /api/audit: an approver downloads their account's audit trail as NDJSON
 * or CSV, optionally only a time range or one order. The trail is sealed
 * first, and the export holds exactly the events sealed up to that head (sent
 * in X-Audit-Chain-Head), streamed a page at a time. MCP tokens are refused,
 * as on /api/approvals.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A calendar date that exists: Date.parse would quietly turn 2026-02-30 into March 2. */
function isRealDate(text: string): boolean {
  const [, year, month, day] = ISO_INSTANT.exec(text) ?? [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

const Instant = z
  .string()
  .regex(ISO_INSTANT, "use an ISO date or time, e.g. 2026-12-01 or 2026-12-01T06:00:00Z")
  .refine(isRealDate, "is not a real date")
  .transform((text) => new Date(text).toISOString());

const ExportQuery = z
  .strictObject({
    format: z.enum(["ndjson", "csv"], { message: 'use "ndjson" or "csv"' }).default("ndjson"),
    from: Instant.optional(),
    to: Instant.optional(),
    order_id: z.string().min(1).max(140).optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, { message: "from must be before to", path: ["from"] });

const FORMATS = {
  ndjson: { contentType: "application/x-ndjson; charset=utf-8", header: "", line: ndjsonLine },
  csv: { contentType: "text/csv; charset=utf-8", header: csvHeader(), line: csvLine },
} as const;

const WWW_AUTHENTICATE = 'Bearer realm="order-ops-edge audit"';

async function exportingApprover(c: Context<AppEnv>): Promise<Result<Approver>> {
  const config = c.get("config");
  if (config.approverTokens.size === 0) {
    return fail("not_configured", "no approver tokens are configured; set APPROVER_TOKENS to export the audit trail");
  }
  const token = bearerToken(c.req.header("authorization"));
  if (token === undefined) return fail("unauthorized", "send Authorization: Bearer <approver token>");
  const approver = await lookupToken(config.approverTokens, token);
  if (approver) return ok(approver);
  const isMcpToken = (await lookupToken(config.mcpTokens, token)) !== undefined;
  return fail("unauthorized", isMcpToken ? "MCP tokens cannot export the audit trail; use an approver token" : "that is not a valid approver token");
}

function refuse(c: Context<AppEnv>, error: AppError): Response {
  return errorResponse(c, error, error.code === "unauthorized" ? { "WWW-Authenticate": WWW_AUTHENTICATE } : undefined);
}

/** `audit-acme-ORD-1001-20261201T061506Z.csv`: who, what and when, safe in any file system. */
function fileName(account: string, orderId: string | undefined, at: Date, extension: string): string {
  const stamp = at.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const order = orderId === undefined ? "" : `-${orderId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return `audit-${account}${order}-${stamp}.${extension}`;
}

/** Pulls one page per read, so memory stays flat however long the trail is. */
function streamOf(pages: AsyncGenerator<ExportedEvent[]>, header: string, line: (event: ExportedEvent) => string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let headerSent = header === "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(header));
        return;
      }
      const next = await pages.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value.map(line).join("")));
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}

/**
 * The export for an approver already signed in. The bearer route below uses
 * it; the approval app's "Export audit trail" button (still to come, with the
 * app's rewrite) should too: its session cookie is scoped to /approvals, so
 * the button wants a route there, e.g. GET /approvals/audit, that resolves the
 * session's approver and hands over to this function.
 */
export async function exportAuditTrail(c: Context<AppEnv>, approver: Approver): Promise<Response> {
  const query = ExportQuery.safeParse(c.req.query());
  if (!query.success) {
    const problems = describeIssues(query.error, "query");
    return refuse(c, { code: "bad_request", message: `the export query has ${problems.length} problem(s): ${problems.join("; ")}`, errors: problems });
  }
  const { format, from, to, order_id } = query.data;
  const sealed = await c.env.ACCOUNT_AGENT.getByName(approver.account).sealAuditTrail(approver);
  if (!sealed.ok) return refuse(c, sealed.error);
  const head = sealed.value;
  const filter: ExportFilter = { from: from ?? null, to: to ?? null, orderId: order_id ?? null };
  const chosen = FORMATS[format];
  return new Response(streamOf(exportSealedEvents(c.env.DB, approver.account, head?.seq ?? 0, filter), chosen.header, chosen.line), {
    headers: {
      "Content-Type": chosen.contentType,
      "Content-Disposition": `attachment; filename="${fileName(approver.account, order_id, new Date(), format)}"`,
      "X-Audit-Chain-Head": head ? `${head.seq}:${head.hash}` : "0:",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

export const auditExport = new Hono<AppEnv>();
auditExport.use("*", requireConfig);

auditExport.get("/", async (c) => {
  const approver = await exportingApprover(c);
  return approver.ok ? exportAuditTrail(c, approver.value) : refuse(c, approver.error);
});
auditExport.all("/", methodNotAllowed(["GET"]));
