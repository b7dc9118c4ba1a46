import { describe, expect, it } from "vitest";
import { CONFUSABLES_VERSION } from "../../src/core/confusable-table";
import { displayName, nameKey, samePerson } from "../../src/core/person";
import { failure } from "../helpers/config";

// Look-alike names, which an adversarial run got past both the configuration's check and four eyes' name guard: a
// Cyrillic А in `Аvery`, a Greek ο, a Hangul filler or a Braille blank where a space should be. A cancellation was
// applied "by Avery Approver … and Аvery Approver …", and an unlinked token named `Аda Ops` approved Ada's own
// proposal. Names now compare by their UTS #39 confusable skeleton. Identity stays the rule; this is the second guard.

const LOOK_ALIKES: [string, string][] = [
  ["a Cyrillic А", "\u0410very Approver"],
  ["a Greek ο", "Avery Appr\u03bfver"],
  ["a Hangul filler for the space", "Avery\u3164Approver"],
  ["a halfwidth Hangul filler for the space", "Avery\uffa0Approver"],
  ["a Braille blank for the space", "Avery\u2800Approver"],
  ["a Cyrillic е and р", "Av\u0435ry Ap\u0440rover"],
];

describe("look-alike names", () => {
  it.each(LOOK_ALIKES)("with %s read as the same name", (_label, twin) => {
    expect(nameKey(twin)).toBe(nameKey("Avery Approver"));
    expect(samePerson({ id: "token-1", name: twin }, { id: "token-2", name: "Avery Approver" })).toBe(true);
  });

  it("Аda Ops (Cyrillic А) is Ada Ops, so an unlinked token of that name cannot approve Ada's proposal", () => {
    expect(samePerson({ id: "ada", name: "Ada Ops" }, { id: "token-x", name: "\u0410da Ops" })).toBe(true);
  });

  it("names that only share letters stay apart", () => {
    expect(nameKey("Avery Approver")).not.toBe(nameKey("Avery Approvers"));
    expect(nameKey("Avery Approver")).not.toBe(nameKey("AveryApprover"));
    expect(nameKey("Ada")).not.toBe(nameKey("Ida"));
    expect(nameKey("Zoë")).not.toBe(nameKey("Zoe"));
  });

  it("a blank-looking character is shown as the space it looks like", () => {
    expect(displayName("Avery\u2800Approver")).toBe("Avery Approver");
  });

  it.each(LOOK_ALIKES)("two tokens whose names differ by %s are refused at startup", (_label, twin) => {
    const error = failure({
      APPROVER_TOKENS: JSON.stringify({
        ["a".repeat(32)]: { account: "acme", approver: "Avery Approver" },
        ["b".repeat(32)]: { account: "acme", approver: twin },
      }),
    });
    expect(error.errors?.[0]).toMatch(/^APPROVER_TOKENS: entries 1 and 2 of account acme both name /);
  });

  it("the table is Unicode's confusables data", () => {
    expect(CONFUSABLES_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
