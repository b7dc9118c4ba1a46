import { describe, expect, it } from "vitest";
import { absoluteTime, latency, money, piecesOf, relativeTime, span } from "../../src/web/format";

const NOW = new Date("2026-12-01T06:00:00.000Z");
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

describe("relativeTime, against an injected now", () => {
  it.each([
    [12 * 60_000, "in 12 min"],
    [-3 * 60_000, "3 min ago"],
    [20_000, "in under a minute"],
    [-5_000, "just now"],
    [-50_000, "50 s ago"],
    [65 * 60_000, "in 1 h 5 min"],
    [-11 * 3_600_000, "11 h ago"],
    [3 * 86_400_000, "in 3 days"],
  ])("%d ms from now reads %j", (delta, words) => {
    expect(relativeTime(at(delta), NOW)).toBe(words);
  });

  it("a value that is not a time is shown as it is", () => {
    expect(relativeTime("soon", NOW)).toBe("soon");
  });
});

describe("absoluteTime", () => {
  it("is the exact UTC time, without the T and the milliseconds", () => {
    expect(absoluteTime("2026-12-01T06:15:06.350Z")).toBe("2026-12-01 06:15:06 UTC");
    expect(absoluteTime("not a time")).toBe("not a time");
  });
});

describe("span", () => {
  it("rounds to what a person cares about", () => {
    expect(span(0)).toBe("0 s");
    expect(span(59_400)).toBe("59 s");
    expect(span(90_000)).toBe("2 min");
    expect(span(3_600_000)).toBe("1 h");
    expect(span(-125 * 60_000)).toBe("2 h 5 min");
  });
});

describe("money and latency", () => {
  it("dollars with the currency's symbol; an odd code still shows the amount", () => {
    expect(money(6600)).toBe("$66.00");
    expect(money(123456, "USD")).toBe("$1,234.56");
    expect(money(500, "EUR")).toBe("€5.00");
    expect(money(500, "not-a-code")).toBe("5.00 not-a-code");
  });

  it("milliseconds, or seconds past one", () => {
    expect(latency(12.34)).toBe("12.3 ms");
    expect(latency(1500)).toBe("1.5 s");
  });
});

describe("piecesOf", () => {
  it("marks hyphenated ids so they stay on one line, and keeps every character", () => {
    const text = "duplicate of ORD-1016: SKU-3390 x1 at ATL-2, proposal prop_a-b.";
    const pieces = piecesOf(text);
    expect(pieces.filter((p) => p.unbroken).map((p) => p.text)).toEqual(["ORD-1016", "SKU-3390", "ATL-2", "prop_a-b."]);
    expect(pieces.map((p) => p.text).join("")).toBe(text);
    expect(piecesOf("no ids here")).toEqual([{ text: "no ids here", unbroken: false }]);
  });
});
