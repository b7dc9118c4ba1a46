import { describe, expect, it } from "vitest";
import { failure, parsed } from "../helpers/config";

// ORDER_API_URL and ORDER_API_TOKEN: where synthetic traffic goes when it is
// not the ORDER_API binding, checked once at startup with messages that say
// what to set.

const DEV = { ENVIRONMENT: "development" };

describe("ORDER_API_URL", () => {
  it("is unset by default: traffic goes through the binding", () => {
    expect(parsed({}).orderApiUrl).toBeUndefined();
  });

  it("an https URL is the target, its host the one allowed, and its token the credential", () => {
    expect(
      parsed({ ORDER_API_URL: "https://Orders.Example.com/", ORDER_API_TOKEN: "s3cret-token" }).orderApiUrl,
    ).toEqual({
      url: "https://orders.example.com",
      host: "orders.example.com",
      token: "s3cret-token",
    });
  });

  it("keeps a base path and a port, so /api/... goes below them", () => {
    expect(parsed({ ORDER_API_URL: "https://gw.example.com:8443/staging/" }).orderApiUrl).toEqual({
      url: "https://gw.example.com:8443/staging",
      host: "gw.example.com:8443",
      token: undefined,
    });
  });

  it("a token is optional: some order APIs take the account header alone", () => {
    expect(parsed({ ORDER_API_URL: "https://orders.example.com" }).orderApiUrl?.token).toBeUndefined();
  });

  it.each([
    [
      "not a URL",
      "orders.example.com",
      "ORDER_API_URL: must be the order API's base URL, like https://orders.example.com",
    ],
    ["another scheme", "ftp://orders.example.com", "ORDER_API_URL: must start with https://"],
    [
      "credentials in the URL",
      "https://ada:pw@orders.example.com",
      "ORDER_API_URL: must not hold a user name or password; put the credential in the ORDER_API_TOKEN secret",
    ],
    ["a query", "https://orders.example.com/?key=1", "ORDER_API_URL: must not have a query or a fragment"],
  ])("refuses %s", (_label, url, message) => {
    expect(failure({ ORDER_API_URL: url }).errors).toEqual([message]);
  });

  it("production refuses plain http, and this machine, which a deployed Worker cannot reach", () => {
    expect(failure({ ORDER_API_URL: "http://orders.example.com" }).errors).toEqual([
      "ORDER_API_URL must use https in production",
    ]);
    expect(failure({ ORDER_API_URL: "https://127.0.0.1:9000" }).errors).toEqual([
      "ORDER_API_URL points at this machine (localhost or a loopback address), which a deployed Worker cannot reach; use the order API's public https URL",
    ]);
  });

  it("development also allows plain http on this machine, for a second local server", () => {
    for (const url of ["http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000"]) {
      expect(parsed({ ...DEV, ORDER_API_URL: url }).orderApiUrl?.url).toBe(url);
    }
    expect(parsed({ ...DEV, ORDER_API_URL: "https://orders.example.com" }).orderApiUrl?.host).toBe(
      "orders.example.com",
    );
  });

  it("development refuses plain http to any other host", () => {
    expect(failure({ ...DEV, ORDER_API_URL: "http://10.0.0.5:8080" }).errors).toEqual([
      "ORDER_API_URL may use plain http only on this machine (localhost, 127.0.0.1, [::1]); use https for any other host",
    ]);
  });
});

describe("ORDER_API_TOKEN", () => {
  it("without ORDER_API_URL is refused: it would go nowhere", () => {
    expect(failure({ ORDER_API_TOKEN: "s3cret-token" }).errors).toEqual([
      "ORDER_API_TOKEN is set but ORDER_API_URL is not; the token is sent only to ORDER_API_URL, so set ORDER_API_URL or remove the secret",
    ]);
  });

  it("must be one header-safe word, and the message never repeats it", () => {
    const error = failure({ ORDER_API_URL: "https://orders.example.com", ORDER_API_TOKEN: "two words\u00e9" });
    expect(error.errors).toEqual([
      "ORDER_API_TOKEN: must be printable ASCII without spaces (it is sent as Authorization: Bearer <token>)",
    ]);
    expect(error.message).not.toContain("two words");
  });
});
