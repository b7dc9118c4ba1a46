import { describe, expect, it } from "vitest";
import { FROM_OUR_PAGE } from "../../helpers/approval-pages";
import { workerFetch } from "../../helpers/mcp-client";

// The approval forms accept urlencoded bodies only; anything else is a
// readable refusal, never a 500, whether or not anyone is signed in.
const ORIGIN = "http://localhost";

function post(path: string, body: string, contentType: string): Promise<Response> {
  return workerFetch(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "content-type": contentType, ...FROM_OUR_PAGE },
    body,
    redirect: "manual",
  });
}

describe("approval form bodies", () => {
  it.each(["/approvals/sign-in", "/approvals/prop_x/decision"])(
    "a malformed multipart body on %s is 415, not 500",
    async (path) => {
      const response = await post(path, "nope", "multipart/form-data; boundary=xyz");
      expect([401, 415]).toContain(response.status);
      expect(response.status).not.toBe(500);
    },
  );

  it("sign-in with multipart is 415 with a message", async () => {
    const response = await post("/approvals/sign-in", "nope", "multipart/form-data; boundary=xyz");
    expect(response.status).toBe(415);
    expect(await response.text()).toContain("application/x-www-form-urlencoded");
  });

  it("sign-out with a malformed body still just redirects", async () => {
    const response = await post("/approvals/sign-out", "nope", "multipart/form-data; boundary=xyz");
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/approvals");
  });

  it("an oversized sign-in form is 413", async () => {
    const response = await post(
      "/approvals/sign-in",
      `token=${"a".repeat(20_000)}`,
      "application/x-www-form-urlencoded",
    );
    expect(response.status).toBe(413);
  });
});
