// What `npm run deploy` prints once it has succeeded: where the Worker is,
// the tokens it set this run (the only time anyone sees them: Cloudflare
// keeps secrets write-only), and what to do next.
import type { NewToken } from "./deploy-plan.ts";

export interface Deployed {
  readonly worker: string;
  readonly account: string;
  /** Where people reach the Worker: PUBLIC_BASE_URL from [vars], else its workers.dev address. */
  readonly baseUrl: string;
  readonly newTokens: readonly NewToken[];
}

const LABEL = { mcp: "MCP token, for the agent:", approver: "approver token, for a person:" } as const;

export function reportLines({ worker, account, baseUrl, newTokens }: Deployed): string[] {
  // Only tokens made here are printed; a token the person passed, they already hold.
  const generated = newTokens.filter((token) => token.generated);
  const mcp = generated.find((token) => token.kind === "mcp");
  const approver = generated.find((token) => token.kind === "approver");
  const lines = [`${worker} is deployed at ${baseUrl}`, ""];
  if (generated.length > 0) {
    lines.push(
      `New credentials for the account ${account}. They are printed this once: Cloudflare keeps secrets write-only, so save them now.`,
      ...generated.map((token) => `  ${LABEL[token.kind].padEnd(31)} ${token.token}`),
      "",
    );
  }
  const bearer = mcp ? mcp.token : "<your MCP token>";
  lines.push(
    "Next:",
    "  1. Connect Claude Code (add --scope user to have it in every folder):",
    `       claude mcp add --transport http order-ops ${baseUrl}/mcp --header "Authorization: Bearer ${bearer}"`,
    `  2. Open the approval page and sign in with the ${approver ? "approver token above" : "approver token"}:`,
    `       ${baseUrl}/approvals`,
    "  3. Check that the configuration is valid (200; a 503 body says what to set):",
    `       curl -s -o /dev/null -w '%{http_code}\\n' ${baseUrl}/.well-known/oauth-authorization-server`,
    "",
    "Run `npm run deploy` again after any change: it uploads the new code and changes nothing else.",
  );
  return lines;
}
