/**
 * GET /api/audit: an approver downloads their account's audit trail as NDJSON
 * or CSV, optionally only a time range or one order. The trail is sealed
 * first, and the export holds exactly the events sealed up to that head (sent
 * in X-Audit-Chain-Head), streamed a page at a time. MCP tokens are refused,
 * as on /api/approvals, by the same check (auth/approver.ts).
 */
import { zValidator } from "@hono/zod-validator";
import { Hono } from "hono";
import { z } from "zod/v4";
import { formatChainHead } from "../../audit/chain";
import { approverBearer } from "../../auth/approver";
import type { Approver } from "../../config/config";
import { fail, ok, type Result } from "../../core/errors";
import { describeIssues } from "../../core/zod-issues";
import { requireConfig } from "../../http/config-middleware";
import { requireCredential, type WithHolder } from "../../http/credential-middleware";
import { firstValues } from "../../http/form-fields";
import { originPolicy } from "../../http/origin-guard";
import { errorResponse, methodNotAllowed } from "../../http/respond";
import { type ExportedEvent, type ExportFilter, exportSealedEvents } from "../../store/export-sealed-events";
import { accountReads } from "../../store/read-session";
import { csvHeader, csvLine, ndjsonLine } from "./export-format";

// An offset is one a clock can have, -23:59 to +23:59: Date turns any other into an invalid time.
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?$/;

/** A calendar date that exists: Date.parse would quietly turn 2026-02-30 into March 2. */
function isRealDate(text: string): boolean {
  const [, year, month, day] = ISO_INSTANT.exec(text) ?? [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day)
  );
}

const INSTANT_HINT = "use an ISO date or time, e.g. 2026-12-01 or 2026-12-01T06:00:00Z";

/** The instant in UTC; a text Date cannot read is an issue, never a thrown RangeError (a 500). */
const Instant = z
  .string()
  // One problem per field: a text that is no instant is not also "not a real date".
  .regex(ISO_INSTANT, { message: INSTANT_HINT, abort: true })
  .refine(isRealDate, "is not a real date")
  .transform((text, ctx) => {
    const date = new Date(text);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
    ctx.addIssue({ code: "custom", message: INSTANT_HINT });
    return z.NEVER;
  });

const ExportQuery = z
  .strictObject({
    format: z.enum(["ndjson", "csv"], { message: 'use "ndjson" or "csv"' }).default("ndjson"),
    from: Instant.optional(),
    to: Instant.optional(),
    order_id: z.string().min(1).max(140).optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, {
    message: "from must be before to",
    path: ["from"],
  });

const FORMATS = {
  ndjson: { contentType: "application/x-ndjson; charset=utf-8", header: "", line: ndjsonLine },
  csv: { contentType: "text/csv; charset=utf-8", header: csvHeader(), line: csvLine },
} as const;

/** `audit-acme-ORD-1001-20261201T061506Z.csv`: who, what and when, safe in any file system. */
function fileName(account: string, orderId: string | undefined, at: Date, extension: string): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const order = orderId === undefined ? "" : `-${orderId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return `audit-${account}${order}-${stamp}.${extension}`;
}

/** Pulls one page per read, so memory stays flat however long the trail is. */
function streamOf(
  pages: AsyncGenerator<ExportedEvent[]>,
  header: string,
  line: (event: ExportedEvent) => string,
): ReadableStream<Uint8Array> {
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

type ExportQuery = z.output<typeof ExportQuery>;

/** A 400 that names every problem of an export query. */
function refusedQuery(error: z.core.$ZodError) {
  const problems = describeIssues(error, "query");
  return fail("bad_request", `the export query has ${problems.length} problem(s): ${problems.join("; ")}`, problems);
}

/**
 * The query of an export, or why not: for the approval app's button, which
 * checks the session first and shows the refusal on a page.
 */
export function parseExportQuery(query: Record<string, string>): Result<ExportQuery> {
  const parsed = ExportQuery.safeParse(query);
  return parsed.success ? ok(parsed.data) : refusedQuery(parsed.error);
}

/** The bearer route's query, through Hono's validator: the same 400 in JSON. */
const exportQuery = zValidator("query", firstValues(ExportQuery), (result, c) =>
  result.success ? undefined : errorResponse(c, refusedQuery(result.error).error),
);

/**
 * The download for an approver already authenticated, whichever way: the
 * bearer route below and the approval app's "Export audit trail" button
 * (GET /approvals/audit, on the approver's session) both answer with it.
 * A failure is a value, so each route shows it its own way (JSON or a page).
 */
export async function exportAuditTrail(env: Env, approver: Approver, query: ExportQuery): Promise<Result<Response>> {
  const { format, from, to, order_id } = query;
  const sealed = await env.ACCOUNT_AGENT.getByName(approver.account).sealAuditTrail(approver);
  if (!sealed.ok) return sealed;
  const head = sealed.value;
  const filter: ExportFilter = { from: from ?? null, to: to ?? null, orderId: order_id ?? null };
  const chosen = FORMATS[format];
  // A session that starts at the primary, which has every seal just made; its later pages come from a replica that has
  // caught up.
  const reads = await accountReads(env, approver.account).queries();
  return ok(
    new Response(
      streamOf(exportSealedEvents(reads, approver.account, head?.seq ?? 0, filter), chosen.header, chosen.line),
      {
        headers: {
          "Content-Type": chosen.contentType,
          "Content-Disposition": `attachment; filename="${fileName(approver.account, order_id, new Date(), format)}"`,
          "X-Audit-Chain-Head": formatChainHead(head),
          "Cache-Control": "no-store",
          "X-Content-Type-Options": "nosniff",
        },
      },
    ),
  );
}

export const auditExport = new Hono<WithHolder<Approver>>();
// The same door as /api/approvals: origin policy first, then the approver's token and its limit.
auditExport.use("*", requireConfig, originPolicy("this API"));

auditExport.get("/", requireCredential<Approver>(approverBearer("export")), exportQuery, async (c) => {
  const exported = await exportAuditTrail(c.env, c.get("holder"), c.req.valid("query"));
  return exported.ok ? exported.value : errorResponse(c, exported.error);
});
auditExport.all("/", methodNotAllowed(["GET"]));
