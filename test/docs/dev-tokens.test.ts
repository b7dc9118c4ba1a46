/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";

// The README's table of local demo tokens is what a newcomer signs in with, so
// it lists exactly the tokens .dev.vars defines (the suite runs with them), each
// under its own account and kind. `npm run dev` prints the same list from .dev.vars.

type Holder = { account: string; role?: string };
const tokensOf = (json: string) => Object.entries(JSON.parse(json) as Record<string, Holder>);

const rows = readme
  .split("\n")
  .map((line) => /^\| `([a-z0-9-]+)` \| `([a-z0-9-]+)` \| ([^|]+) \| [^|]+ \|$/.exec(line))
  .flatMap((match) => (match ? [{ account: match[1], token: match[2], kind: (match[3] ?? "").trim() }] : []));

describe("the README's demo tokens", () => {
  const operators = tokensOf(env.MCP_TOKENS);
  const approvers = tokensOf(env.APPROVER_TOKENS);

  it("are exactly the tokens .dev.vars defines", () => {
    expect(rows.map((row) => row.token).sort()).toEqual([...operators, ...approvers].map(([token]) => token).sort());
  });

  it.each([
    ...operators.map(([token, holder]) => [token, holder.account, `MCP, ${holder.role ?? "operator"}`]),
    ...approvers.map(([token, holder]) => [
      token,
      holder.account,
      holder.role && holder.role !== "approver" ? `approver, ${holder.role}` : "approver",
    ]),
  ])("%s is listed under account %s as %s", (token, account, kind) => {
    expect(rows.find((row) => row.token === token)).toEqual({ account, token, kind });
  });
});
