import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import {
  ACCOUNT_CALLS,
  APPROVER_CALLS,
  bindCaller,
  FOREIGN_CALLER_MESSAGE,
  OPERATOR_CALLS,
  RPC_CALLS,
} from "../../src/account/account-calls";

// The account object's RPC face is its table of entries: each entry becomes
// a method behind the same check of the caller's account, and the Worker's
// tools reach the operator entries only through a face bound to one caller.

const GLOBEX = { account: "globex", id: "gus-ops", operator: "Gus Ops (globex, local dev)" };
const refusal = { ok: false, error: { code: "forbidden", message: FOREIGN_CALLER_MESSAGE } };

describe("the entries", () => {
  it("the three tables share no name, so none is lost when they are merged into the object's methods", () => {
    const names = [OPERATOR_CALLS, APPROVER_CALLS, ACCOUNT_CALLS].flatMap((table) => Object.keys(table));
    expect(names.length).toBeGreaterThan(15);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(RPC_CALLS).sort()).toEqual([...names].sort());
  });

  it("every entry is a method of the object that refuses a caller of another account before reading its arguments", async () => {
    const stub = (await getAgentByName(env.ACCOUNT_AGENT, "acme")) as unknown as Record<
      string,
      (caller: unknown) => Promise<unknown>
    >;
    const foreign = { ...GLOBEX, approver: "Gina Approver (globex, local dev)" };
    const answers = await Promise.all(
      Object.keys(RPC_CALLS).map(async (name) => [name, await stub[name]?.(foreign)] as const),
    );
    expect(Object.fromEntries(answers)).toEqual(
      Object.fromEntries(Object.keys(RPC_CALLS).map((name) => [name, refusal])),
    );
  });
});

describe("bindCaller", () => {
  it("offers exactly the table's entries, and each passes the bound caller first, then the call's own arguments", async () => {
    const seen: unknown[][] = [];
    const stub = Object.fromEntries(
      Object.keys(OPERATOR_CALLS).map((name) => [name, async (...args: unknown[]) => void seen.push([name, ...args])]),
    );
    const bound = bindCaller(stub as never, GLOBEX, OPERATOR_CALLS);
    expect(Object.keys(bound).sort()).toEqual(Object.keys(OPERATOR_CALLS).sort());
    expect(Object.isFrozen(bound)).toBe(true);
    await bound.getProposal("prop_1");
    await bound.compareTrafficRuns("R-2", "R-1", 10);
    expect(seen).toEqual([
      ["getProposal", GLOBEX, "prop_1"],
      ["compareTrafficRuns", GLOBEX, "R-2", "R-1", 10],
    ]);
    // @ts-expect-error a bound call takes no caller: the tool cannot name another operator or account
    await bound.getProposal({ account: "acme", id: "ada-ops", operator: "Ada Ops (acme, local dev)" }, "prop_1");
    expect(seen[2]?.[1]).toEqual(GLOBEX);
  });

  it("bound to a caller of another account, the real object refuses every call", async () => {
    const bound = bindCaller(await getAgentByName(env.ACCOUNT_AGENT, "acme"), GLOBEX, OPERATOR_CALLS);
    expect(await bound.recentRuns()).toEqual(refusal);
    expect(await bound.getProposal("prop_x")).toEqual(refusal);
  });
});
