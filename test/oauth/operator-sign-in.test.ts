import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/config";
import { SIGN_IN_FIELD, signInOperator } from "../../src/oauth/operator-sign-in";
import { ACME_APPROVER_TOKEN, ACME_TOKEN } from "../helpers/tokens";

// The sign-in function the consent page calls: it gets the whole post (the request
// and its form), so an upstream provider that vouches in headers can replace
// its body without touching the page's route.

function config(): Config {
  const parsed = parseConfig(env);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const consentPost = new Request("http://localhost/authorize", { method: "POST" });
const form = (fields: Record<string, string>) => fields;

describe("signInOperator(config, request, form)", () => {
  it("signs in the operator whose MCP token is in the form's sign-in field, naming the credential by digest only", async () => {
    const signedIn = await signInOperator(
      config(),
      consentPost,
      form({ [SIGN_IN_FIELD.name]: ` ${ACME_TOKEN} `, handle: "h" }),
    );
    if (!signedIn.ok) throw new Error(signedIn.error.message);
    expect(signedIn.value).toMatchObject({ account: "acme", operator: "Ada Ops (acme, local dev)" });
    expect(signedIn.value.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn.value.credential).not.toContain(ACME_TOKEN);
  });

  it.each([
    ["an empty field", {}, "enter your MCP token to sign in"],
    [
      "an approver token",
      { [SIGN_IN_FIELD.name]: ACME_APPROVER_TOKEN },
      "approver tokens cannot sign in here; use the MCP token of the operator this app will act for",
    ],
    ["an unknown token", { [SIGN_IN_FIELD.name]: "nope" }, "that is not a valid MCP token"],
  ])("refuses %s with a readable reason", async (_label, fields, message) => {
    const signedIn = await signInOperator(config(), consentPost, form(fields));
    expect(signedIn).toEqual({ ok: false, error: expect.objectContaining({ code: "unauthorized", message }) });
  });
});
