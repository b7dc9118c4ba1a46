// `npm run deploy -- <options>`: what the person can choose. Tokens can also
// come from the environment, which keeps them out of the shell's history.
import { fail, ok, type Result } from "../../src/core/errors.ts";
import { accountProblem, DEFAULT_ACCOUNT, type TokenKind, tokenProblem } from "./deploy-credentials.ts";
import type { DeployOptions } from "./deploy-plan.ts";

export const USAGE = `npm run deploy [-- options]

Deploys this Worker to the Cloudflare account wrangler is logged in to
(\`npx wrangler login\`), creating what is missing; run again, it changes nothing else.

  --dry-run                 print every command a first deploy runs, in order; run none
  --account <id>            the account the first tokens are for (default ${DEFAULT_ACCOUNT}, whose demo orders are loaded)
  --mcp-token <token>       the agent's token, instead of a new one (or ORDER_OPS_MCP_TOKEN)
  --approver-token <token>  the approver's token, instead of a new one (or ORDER_OPS_APPROVER_TOKEN)
  --no-demo-data            leave the demo orders out (DEMO_DATA off): a deployment for your own data
  --help                    this text`;

export interface DeployArgs extends DeployOptions {
  readonly dryRun: boolean;
  readonly help: boolean;
}

const VALUE_FLAGS = ["--account", "--mcp-token", "--approver-token"] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];

/** Set and not "false" or "0", as CI systems and the ci-info package wrangler uses read it. */
function isOn(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "false" && value !== "0";
}

/** Workers Builds (which the Deploy to Cloudflare button uses) sets WORKERS_CI; most CI systems set CI. */
export function isCiBuild(env: Readonly<Record<string, string | undefined>>): boolean {
  return isOn(env.WORKERS_CI) || isOn(env.CI);
}

interface Flags {
  readonly values: ReadonlyMap<ValueFlag, string>;
  readonly dryRun: boolean;
  readonly help: boolean;
  readonly demoData: boolean;
}

function readFlags(argv: readonly string[]): Result<Flags> {
  const values = new Map<ValueFlag, string>();
  let dryRun = false;
  let help = false;
  let demoData = true;
  for (let at = 0; at < argv.length; at += 1) {
    const arg = argv[at] ?? "";
    const [flag = "", inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    if (flag === "--dry-run") dryRun = true;
    else if (flag === "--help" || flag === "-h") help = true;
    else if (flag === "--no-demo-data") demoData = false;
    else if ((VALUE_FLAGS as readonly string[]).includes(flag)) {
      const value = inline ?? argv[at + 1];
      if (value === undefined || value === "") return fail("bad_request", `${flag} needs a value\n\n${USAGE}`);
      if (inline === undefined) at += 1;
      values.set(flag as ValueFlag, value);
    } else return fail("bad_request", `unknown option ${JSON.stringify(arg)}\n\n${USAGE}`);
  }
  return ok({ values, dryRun, help, demoData });
}

export function parseDeployArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Result<DeployArgs> {
  const flags = readFlags(argv);
  if (!flags.ok) return flags;
  const { values, dryRun, help, demoData } = flags.value;
  const account = values.get("--account") ?? DEFAULT_ACCOUNT;
  const problem = accountProblem(account);
  if (problem) return fail("bad_request", problem);
  const passed: Partial<Record<TokenKind, string>> = {};
  const mcp = values.get("--mcp-token") ?? env.ORDER_OPS_MCP_TOKEN;
  const approver = values.get("--approver-token") ?? env.ORDER_OPS_APPROVER_TOKEN;
  if (mcp) passed.mcp = mcp;
  if (approver) passed.approver = approver;
  // Refused before anything runs: a deployed Worker would refuse them too, after the deploy.
  const refused = (["mcp", "approver"] as const).flatMap((kind) => {
    const token = passed[kind];
    const problem = token === undefined ? undefined : tokenProblem(kind, token);
    return problem ? [problem] : [];
  });
  if (mcp !== undefined && mcp === approver)
    refused.push(
      "the MCP token and the approver token are the same; an approver credential must differ from every MCP token",
    );
  if (refused.length > 0) return fail("bad_request", refused.join("; "));
  return ok({ dryRun, help, account, passed, ci: isCiBuild(env), demoData });
}
