import { describe, expect, it } from "vitest";
import { defaultPersonId } from "../../src/config/token-maps";
import { displayName, nameKey } from "../../src/core/person";
import { failure, parsed } from "../helpers/config";

// Who a token's holder is: an identity (explicit, or derived from the token),
// and a display name stored normalized. Two entries of one account whose names
// read the same are refused at startup, since four eyes could not tell them apart.

const A = "a".repeat(32);
const B = "b".repeat(32);
const C = "c".repeat(32);
const approvers = (entries: Record<string, object>) => JSON.stringify(entries);
const APPROVER_HELP =
  'set it with `wrangler secret put APPROVER_TOKENS`, value {"<token>":{"account":"acme","approver":"Avery"}}';

describe("display names", () => {
  it("are stored in NFKC, without invisible characters, with each run of whitespace one space", () => {
    expect(displayName("  Avery\u00a0\u2003Approver\u200b ")).toBe("Avery Approver");
    expect(displayName("Ａｖｅｒｙ")).toBe("Avery");
    expect(displayName("Av\u00ADery\uFEFF")).toBe("Avery");
    expect(nameKey("AVERY  approver")).toBe(nameKey("avery approver"));
    expect(nameKey("Strauß")).toBe(nameKey("STRAUSS"));
    expect(nameKey("Avery")).not.toBe(nameKey("Avery B."));
  });

  it("an approver's name is kept as written once normalized, and the token gives the identity when none is set", () => {
    const config = parsed({
      APPROVER_TOKENS: approvers({ [A]: { account: "acme", approver: "Avery\u00a0Approver" } }),
    });
    expect(config.approverTokens.get(A)).toEqual({
      account: "acme",
      id: defaultPersonId(A),
      approver: "Avery Approver",
    });
    expect(defaultPersonId(A)).toMatch(/^token-[0-9a-f]{16}$/);
    expect(defaultPersonId(A)).not.toBe(defaultPersonId(B));
    expect(defaultPersonId(A)).not.toContain("aaaa");
  });

  it("an explicit id is kept, so one person's two entries share it", () => {
    const config = parsed({
      MCP_TOKENS: JSON.stringify({ [A]: { account: "acme", id: "ada", operator: "Ada Ops" } }),
      APPROVER_TOKENS: approvers({ [B]: { account: "acme", id: "ada", approver: "Ada (approvals)" } }),
    });
    expect(config.mcpTokens.get(A)?.id).toBe("ada");
    expect(config.approverTokens.get(B)?.id).toBe("ada");
  });

  it("an id that is not a plain word is refused", () => {
    expect(
      failure({ APPROVER_TOKENS: approvers({ [A]: { account: "acme", id: "a b", approver: "Avery" } }) }).errors,
    ).toEqual([
      `APPROVER_TOKENS: entry 1: id: must be 1 to 100 letters, digits, '.', '_', '@' or '-', like "avery" (${APPROVER_HELP})`,
    ]);
  });
});

describe("two entries whose names read the same", () => {
  it.each([
    ["a no-break space", "Avery\u00a0Approver (acme, local dev)"],
    ["a zero-width space", "Avery \u200bApprover (acme, local dev)"],
    ["full-width letters", "Ａｖｅｒｙ Approver (acme, local dev)"],
    ["another case and extra spaces", "  avery   APPROVER (acme, local dev)"],
  ])("are refused at startup when one differs by %s, naming both entries and never a token", (_label, twin) => {
    const error = failure({
      APPROVER_TOKENS: approvers({
        [A]: { account: "acme", approver: "Avery Approver (acme, local dev)" },
        [B]: { account: "acme", approver: "Blake Approver (acme, local dev)" },
        [C]: { account: "acme", approver: twin },
      }),
    });
    expect(error.errors).toEqual([
      `APPROVER_TOKENS: entries 1 and 3 of account acme both name "${displayName(twin)}" once case, spacing, invisible or full-width characters and look-alike letters are set aside; four eyes could not tell those two people apart, so give each person a name of their own (one person needs only one token here) (${APPROVER_HELP})`,
    ]);
    expect(error.message).not.toContain(A);
    expect(error.message).not.toContain(C);
  });

  it("are two people in two accounts", () => {
    const config = parsed({
      APPROVER_TOKENS: approvers({
        [A]: { account: "acme", approver: "Avery" },
        [B]: { account: "globex", approver: "Avery" },
      }),
    });
    expect(config.approverTokens.size).toBe(2);
  });

  it("among operators are refused the same way", () => {
    const error = failure({
      MCP_TOKENS: JSON.stringify({
        [A]: { account: "acme", operator: "Ada" },
        [B]: { account: "acme", operator: "ADA" },
      }),
    });
    expect(error.errors?.[0]).toMatch(/^MCP_TOKENS: entries 1 and 2 of account acme both name "ADA" once case/);
  });
});

describe("an approver linked to an operator", () => {
  const MCP = JSON.stringify({
    [A]: { account: "acme", operator: "Ada Ops" },
    [B]: { account: "acme", id: "gus", operator: "Gus" },
  });

  it("carries the operator's identity, found by name or by id", () => {
    const config = parsed({
      MCP_TOKENS: MCP,
      APPROVER_TOKENS: approvers({
        [C]: { account: "acme", approver: "Ada (approvals)", operator: "ada\u00a0ops" },
        ["d".repeat(32)]: { account: "acme", approver: "Gus (approvals)", operator: "gus" },
      }),
    });
    expect(config.approverTokens.get(C)?.operator_id).toBe(defaultPersonId(A));
    expect(config.approverTokens.get("d".repeat(32))?.operator_id).toBe("gus");
  });

  it("to an operator the account does not have stays a name, which four eyes still compares", () => {
    const config = parsed({
      MCP_TOKENS: MCP,
      APPROVER_TOKENS: approvers({ [C]: { account: "globex", approver: "Gina", operator: "Ada Ops" } }),
    });
    expect(config.approverTokens.get(C)).toEqual({
      account: "globex",
      id: defaultPersonId(C),
      approver: "Gina",
      operator: "Ada Ops",
    });
  });
});
