import { describe, expect, it } from "vitest";
import { ok } from "../../src/core/errors";
import { unreachable } from "../../src/synth/order-api-target";
import { fakeTarget, HEALTHY, OPERATOR, traffic } from "../helpers/synth-fakes";

// The batch sender's progress reports and its journal, with a fake target:
// the batch is on record, with its seed, before the first order leaves, and
// its tally follows the answers.

describe("BatchSender progress", () => {
  it("reports about 20 times, ending at the total, and posts nothing while a report is still on its way", async () => {
    const target = fakeTarget(() => ok(HEALTHY));
    const { sender } = traffic(target, 4);
    const reports: { sent: number; postedBefore: number; postedAfter: number }[] = [];
    const result = await sender.send({ count: 100, mode: "seeded", seed: 21 }, OPERATOR, async (sent) => {
      const postedBefore = target.posted.length;
      // A slow listener: the client is still taking the report. One turn of the event loop lets every answer
      // already due come back, so a sender that posted on an answer rather than on the report would have by now.
      await new Promise((resolve) => setTimeout(resolve, 0));
      reports.push({ sent, postedBefore, postedAfter: target.posted.length });
    });
    expect(result.ok).toBe(true);
    expect(reports.map((r) => r.sent)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 5));
    // Orders already in flight may finish, but none is posted while the report is pending.
    for (const report of reports) expect(report.postedAfter).toBe(report.postedBefore);
  });
});

describe("BatchSender journal", () => {
  it("opens the batch as running, with its seed, before the first order is posted, and brings its tally up to date each second", async () => {
    // Every fifth order is rejected, so the running tally has both kinds; each answer takes 250 ms.
    let clockMs = Date.parse("2026-12-04T10:00:00Z");
    const target = fakeTarget(
      () => ok(HEALTHY),
      (_order, index) => {
        clockMs += 250;
        return ok(
          index % 5 === 4 ? { status: 422, body: { errors: [`problem ${index}`] } } : { status: 201, body: {} },
        );
      },
    );
    const { sender, openings, updates, recorded } = traffic(target, 1, () => new Date(clockMs));
    const result = await sender.send({ count: 25, mode: "seeded", seed: 11 }, OPERATOR);
    expect(result.ok).toBe(true);

    expect(openings).toHaveLength(1);
    expect(openings[0]?.posted).toBe(0);
    expect(openings[0]?.value).toMatchObject({
      batch_id: "B-test",
      seed: 11,
      mode: "seeded",
      requested: 25,
      outcome: "running",
      accepted: 0,
      rejected: 0,
      finished_at: null,
      operator: OPERATOR,
    });
    // One order in flight at a time: each update lands before the next order leaves, once every four answers (a
    // second).
    expect(
      updates.map(({ posted, value }) => ({
        posted,
        sent: value.sent,
        accepted: value.accepted,
        rejected: value.rejected,
      })),
    ).toEqual([
      { posted: 4, sent: 4, accepted: 4, rejected: 0 },
      { posted: 8, sent: 8, accepted: 7, rejected: 1 },
      { posted: 12, sent: 12, accepted: 10, rejected: 2 },
      { posted: 16, sent: 16, accepted: 13, rejected: 3 },
      { posted: 20, sent: 20, accepted: 16, rejected: 4 },
      { posted: 24, sent: 24, accepted: 20, rejected: 4 },
    ]);
    expect(updates[4]?.value.status_counts).toEqual({ "201": 16, "422": 4 });
    expect(updates[4]?.value.sample_failures).toEqual([
      "422 problem 4",
      "422 problem 9",
      "422 problem 14",
      "422 problem 19",
    ]);
    expect(recorded.map((r) => [r.kind, r.summary.accepted, r.summary.rejected])).toEqual([["completed", 20, 5]]);
  });

  it("a batch answered within a second writes only its opening and its close", async () => {
    const target = fakeTarget(() => ok(HEALTHY));
    const frozen = new Date("2026-12-04T10:00:00Z");
    const { sender, openings, updates, recorded } = traffic(target, 8, () => frozen);
    const result = await sender.send({ count: 100, mode: "seeded", seed: 5 }, OPERATOR);
    expect(result.ok).toBe(true);
    expect(openings).toHaveLength(1);
    expect(updates).toEqual([]);
    expect(recorded.map((r) => [r.kind, r.summary.accepted])).toEqual([["completed", 100]]);
  });

  it("a batch that fails before any order still opened first, so its seed is on record", async () => {
    const target = fakeTarget(() => unreachable("connection refused"));
    const { sender, openings, updates, recorded } = traffic(target);
    await sender.send({ count: 5, mode: "seeded", seed: undefined }, OPERATOR);
    expect(openings).toHaveLength(1);
    expect(Number.isInteger(openings[0]?.value.seed)).toBe(true);
    expect(updates).toEqual([]);
    expect(recorded.map((r) => [r.kind, r.summary.seed])).toEqual([["failed", openings[0]?.value.seed]]);
  });
});
