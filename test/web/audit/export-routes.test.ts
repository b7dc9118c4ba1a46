import { beforeAll, describe, expect, it } from "vitest";
import { formatChainHead, GENESIS_HASH } from "../../../src/audit/chain";
import { checkExportedChain } from "../../../src/audit/chain-check";
import {
  type ExportedRow,
  exportAudit,
  exportedText,
  ndjson,
  orderWithEvents,
  parseCsv,
} from "../../helpers/audit-export";
import {
  type ErrorBody,
  postOrder,
  type Receipt,
  readJson,
  uniqueRequestId,
  validOrder,
  warmUp,
} from "../../helpers/orders";
import { ACME_APPROVER_TOKEN, ACME_TOKEN, GLOBEX_APPROVER_TOKEN } from "../../helpers/tokens";

// GET /api/audit: the approver's export of their account's trail. The same
// export from the approval app's button is in approval-app-export.test.ts.

beforeAll(warmUp);

describe("who may export", () => {
  it("refuses no token, an unknown one, and an MCP token, with 401", async () => {
    const none = await exportAudit("", null);
    expect(none.status).toBe(401);
    // One credential kind, one check and one challenge: the same realm as /api/approvals.
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="order-ops-edge approvals"');
    expect((await exportAudit("", "not-a-token-at-all")).status).toBe(401);
    const mcp = await exportAudit("", ACME_TOKEN);
    expect(mcp.status).toBe(401);
    expect((await readJson<ErrorBody>(mcp)).message).toBe(
      "MCP tokens cannot export the audit trail; use an approver token",
    );
  });

  it("answers 405 to anything but GET", async () => {
    const response = await exportAudit("", ACME_APPROVER_TOKEN, "POST");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });

  it("gives each approver their own account's trail only", async () => {
    const receipt = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("export"))));
    const globex = await ndjson(await exportAudit("", GLOBEX_APPROVER_TOKEN));
    expect(globex.length).toBeGreaterThan(0);
    expect(new Set(globex.map((r) => r.account))).toEqual(new Set(["globex"]));
    const acme = await ndjson(await exportAudit());
    expect(acme.map((r) => r.event_id)).toContain(`${receipt.order_id}:received`);
  });
});

describe("NDJSON", () => {
  it("is the sealed chain itself: whoever receives it can recompute every link up to the head it names", async () => {
    await postOrder(validOrder(uniqueRequestId("chain")));
    const response = await exportAudit();
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="audit-acme-\d{8}T\d{6}Z\.ndjson"$/,
    );
    const head = response.headers.get("x-audit-chain-head");
    const text = new TextDecoder().decode(await response.arrayBuffer());
    const rows = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as ExportedRow);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    const checker = await checkExportedChain(text);
    expect(checker.problems).toEqual([]);
    expect(checker.checked).toBe(rows.length);
    expect(head).toBe(`${checker.head?.seq}:${checker.head?.hash}`);
    // An edited line in the file is caught the same way.
    const tampered = text.replace(/"actor":"[^"]*"/, '"actor":"Mallory"');
    expect((await checkExportedChain(tampered)).problems.map((p) => [p.kind, p.seq])).toEqual([["edited", 1]]);
  });

  it("a newer export still holds the head of an older one; a rewritten or missing link at that head is named", async () => {
    const older = await exportAudit();
    const [seq, hash] = (older.headers.get("x-audit-chain-head") ?? "").split(":");
    await older.body?.cancel();
    const anchor = { seq: Number(seq), hash: hash ?? "" };
    await postOrder(validOrder(uniqueRequestId("newer")));
    const newer = await exportedText(await exportAudit());
    const checked = await checkExportedChain(newer, { anchors: [anchor] });
    expect(checked.head?.seq).toBeGreaterThan(anchor.seq);
    expect(checked.problems).toEqual([]);
    const rewritten = await checkExportedChain(newer, { anchors: [{ ...anchor, hash: "f".repeat(64) }] });
    expect(rewritten.problems.map((p) => [p.kind, p.seq])).toEqual([["head_mismatch", anchor.seq]]);
    const cutOff = newer
      .split("\n")
      .filter((line) => line !== "" && (JSON.parse(line) as ExportedRow).seq < anchor.seq)
      .join("\n");
    expect((await checkExportedChain(cutOff, { anchors: [anchor] })).problems.map((p) => p.message)).toEqual([
      `the chain no longer reaches seq ${anchor.seq}, which was sealed: its end was cut off`,
    ]);
  });

  it("an export of an empty chain names a head that every later export holds", async () => {
    // What an account that never wrote anything gets; audit:verify --head must take it.
    const empty = formatChainHead(null);
    expect(empty).toBe(`0:${GENESIS_HASH}`);
    const newer = await exportedText(await exportAudit());
    const anchor = { seq: 0, hash: GENESIS_HASH };
    expect((await checkExportedChain(newer, { anchors: [anchor] })).problems).toEqual([]);
    const forged = await checkExportedChain(newer, { anchors: [{ seq: 0, hash: "f".repeat(64) }] });
    expect(forged.problems.map((p) => [p.kind, p.seq])).toEqual([["head_mismatch", 0]]);
  });

  it("filters by order, and names the order in the file name", async () => {
    const orderId = await orderWithEvents(["2026-03-01T00:00:00.000Z", "2026-03-01T00:00:01.000Z"]);
    const response = await exportAudit(`?order_id=${orderId}`);
    expect(response.headers.get("content-disposition")).toContain(`audit-acme-${orderId}-`);
    expect((await ndjson(response)).map((r) => r.event_id)).toEqual([`${orderId}:note-0000`, `${orderId}:note-0001`]);
  });

  it("filters by time: from inclusive, to exclusive", async () => {
    const times = [
      "2031-05-01T00:00:00.000Z",
      "2031-05-01T00:00:01.000Z",
      "2031-05-01T00:00:02.000Z",
      "2031-05-01T00:00:03.000Z",
    ];
    const orderId = await orderWithEvents(times);
    const rows = await ndjson(
      await exportAudit(`?from=2031-05-01T00:00:01Z&to=2031-05-01T00:00:03.000Z&order_id=${orderId}`),
    );
    expect(rows.map((r) => r.created_at)).toEqual([times[1], times[2]]);
    const day = await ndjson(await exportAudit("?from=2031-05-01&to=2031-05-02"));
    expect(day.map((r) => r.event_id)).toEqual(times.map((_, i) => `${orderId}:note-${String(i).padStart(4, "0")}`));
  });

  it("streams a trail longer than one page, in order", async () => {
    const times = Array.from({ length: 1_100 }, (_, i) => new Date(Date.UTC(2032, 0, 1) + i * 1_000).toISOString());
    const orderId = await orderWithEvents(times);
    const rows = await ndjson(await exportAudit(`?order_id=${orderId}`));
    expect(rows).toHaveLength(1_100);
    expect(rows.every((r, i) => i === 0 || r.seq > (rows[i - 1]?.seq ?? 0))).toBe(true);
  });
});

describe("CSV", () => {
  it("quotes commas, quotes and line breaks, and keeps formulas from running", async () => {
    const reason = 'said "cancel it", then\nchanged their mind';
    const orderId = await orderWithEvents(["2026-04-01T00:00:00.000Z"], { reason, actor: '=HYPERLINK("http://evil")' });
    const response = await exportAudit(`?format=csv&order_id=${orderId}`);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/\.csv"$/);
    const text = await response.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, row, ...rest] = parseCsv(text);
    expect(rest).toEqual([]);
    expect(header).toEqual([
      "seq",
      "created_at",
      "account",
      "order_id",
      "event_id",
      "event_type",
      "actor_kind",
      "actor",
      "reason",
      "proposal_id",
      "state_before",
      "state_after",
      "prev_hash",
      "hash",
    ]);
    const cells = Object.fromEntries((header ?? []).map((name, i) => [name, row?.[i]]));
    expect(cells).toMatchObject({
      order_id: orderId,
      reason,
      actor: '\'=HYPERLINK("http://evil")',
      proposal_id: "",
      state_after: "",
    });
    expect(cells.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("writes states as JSON cells", async () => {
    const receipt = await readJson<Receipt>(await postOrder(validOrder(uniqueRequestId("csv"))));
    const [header, row] = parseCsv(await (await exportAudit(`?format=csv&order_id=${receipt.order_id}`)).text());
    const stateAfter = row?.[(header ?? []).indexOf("state_after")] ?? "";
    expect(JSON.parse(stateAfter)).toMatchObject({ status: "accepted", version: 1 });
  });
});

describe("bad queries get a 400 that says what is wrong", () => {
  it.each([
    ["?format=xml", /format: use "ndjson" or "csv"/],
    ["?from=yesterday", /from: use an ISO date or time/],
    ["?from=2026-02-30", /from: is not a real date/],
    ["?to=2026-01-01T24:00:00Z", /to: use an ISO date or time/],
    ["?from=2026-02-02&to=2026-02-01", /from: from must be before to/],
    ["?since=2026-01-01", /since/],
  ])("%s", async (query, message) => {
    const response = await exportAudit(query);
    expect(response.status).toBe(400);
    expect((await readJson<ErrorBody>(response)).message).toMatch(message);
  });
});
