import { describe, expect, it } from "vitest";
import { isJsonMediaType, isMediaType, parseMediaType, unreadableCharset } from "../../src/core/media-type";

// One reading of Content-Type (RFC 9110 8.3.1) for every place that checks one.

describe("parseMediaType", () => {
  it.each([
    ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
    ["Application/X-WWW-Form-Urlencoded", "application/x-www-form-urlencoded"],
    ["  TEXT/Event-Stream ; charset=utf-8", "text/event-stream"],
    ["application/json;charset=UTF-8", "application/json"],
  ])("%j is %s", (header, essence) => {
    expect(parseMediaType(header)?.essence).toBe(essence);
  });

  it.each([null, undefined, "", "application", "application/json/x", "a b/c", "/json"])(
    "%j names no media type",
    (header) => {
      expect(parseMediaType(header)).toBeUndefined();
    },
  );

  it("parameter names are case-insensitive and quoted values unquoted; the first of a repeated one counts", () => {
    const parsed = parseMediaType('text/plain; CharSet="UTF-8" ; charset=latin1; format = flowed');
    expect(parsed?.parameters.get("charset")).toBe("UTF-8");
    expect(parsed?.parameters.get("format")).toBe("flowed");
  });

  it("a type that only begins like another is not it", () => {
    expect(isMediaType("application/x-www-form-urlencodedX", "application/x-www-form-urlencoded")).toBe(false);
    expect(isJsonMediaType("application/jsonp")).toBe(false);
    expect(isJsonMediaType("Application/Problem+JSON; charset=utf-8")).toBe(true);
  });
});

describe("unreadableCharset", () => {
  it.each(["application/json", "application/json; charset=UTF-8", "application/json; charset=utf8"])(
    "%j is read as UTF-8",
    (header) => {
      expect(unreadableCharset(header)).toBeUndefined();
    },
  );

  it("another charset is named as the reason for refusing", () => {
    expect(unreadableCharset("application/json; charset=UTF-16")).toBe("charset=utf-16 is not read here; send UTF-8");
  });
});
