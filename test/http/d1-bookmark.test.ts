import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, bookmarkFromRequest, withNextBookmark } from "../../src/http/d1-bookmark";

const BOOKMARK = "0000000b-00000002-00004f80-fc4d44c30c2a3bb8e0b2f7ec8c6b9d6d";
const carrying = (value: string) => new Headers({ [BOOKMARK_HEADER]: value });

describe("the D1 bookmark a caller carries", () => {
  it("is a bookmark or first-primary", () => {
    expect(bookmarkFromRequest(carrying(BOOKMARK))).toBe(BOOKMARK);
    expect(bookmarkFromRequest(carrying(` ${BOOKMARK} `))).toBe(BOOKMARK);
    expect(bookmarkFromRequest(carrying("first-primary"))).toBe("first-primary");
    expect(bookmarkFromRequest(new Headers())).toBeUndefined();
  });

  it("counts as none, so the reads start at the primary, when it has any other shape", () => {
    for (const value of ["", "garbage", "first-unconstrained", "0000-", `${BOOKMARK};drop`, `${"1-".repeat(40)}1`])
      expect(bookmarkFromRequest(carrying(value)), value).toBeUndefined();
  });
});

describe("the bookmark an answer hands on", () => {
  it("is set on a JSON answer", () => {
    const answer = withNextBookmark(Response.json({ ok: true }), BOOKMARK);
    expect(answer.headers.get(BOOKMARK_HEADER)).toBe(BOOKMARK);
  });

  it("is left out when the request learnt none", () => {
    expect(withNextBookmark(Response.json({ ok: true }), undefined).headers.has(BOOKMARK_HEADER)).toBe(false);
  });

  it("is the primary on a stream, which goes out before the call behind it is done", () => {
    const stream = new Response("event: message\n\n", { headers: { "content-type": "text/event-stream" } });
    expect(withNextBookmark(stream, BOOKMARK).headers.get(BOOKMARK_HEADER)).toBe("first-primary");
  });

  it("is set on an answer whose headers cannot change, by copying it", async () => {
    const fetched = Response.redirect("http://localhost/elsewhere", 302);
    const answer = withNextBookmark(fetched, BOOKMARK);
    expect(answer.headers.get(BOOKMARK_HEADER)).toBe(BOOKMARK);
    expect(answer.status).toBe(302);
  });
});
