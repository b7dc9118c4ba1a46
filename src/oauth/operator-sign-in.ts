/**
 * Who may connect an OAuth client (claude.ai, ChatGPT) to an account, and what
 * they may let it do. This module stands in for a company identity provider:
 * a person signs in on the consent page with their MCP token, the operator
 * credential this deployment already has, and can grant at most that token's
 * scopes. The grant remembers which token signed it (by digest), so removing
 * or rotating that token ends every grant it signed.
 *
 * To sign in through an upstream provider instead, replace these two
 * functions (docs/oauth.md, "Replacing the sign-in"): signInOperator gets the whole
 * consent post, so it can map the provider's identity (a verified Cloudflare
 * Access JWT in the request's headers, or a GitHub login finished at a
 * callback) to an operator, and grantStillValid re-checks that mapping
 * whenever a token is used.
 */
import { z } from "zod/v4";
import { lookupToken, lookupTokenDigest, tokenDigest } from "../auth/tokens";
import type { Config, McpTokenHolder } from "../config/config";
import { AccountIdSchema } from "../core/account-id";
import { base64url } from "../core/encoding";
import { fail, ok, type Result } from "../core/errors";
import { type Scope, ScopeSchema } from "../core/scopes";

export interface SignedInOperator extends McpTokenHolder {
  /**
   * Names the sign-in credential without holding it: here the MCP token's
   * digest; with an upstream provider, the provider's subject id.
   */
  readonly credential: string;
}

/** What a grant stores (encrypted by the OAuth library) and every access token of it carries. */
export const GrantPropsSchema = z.object({
  account: AccountIdSchema,
  operator: z.string().min(1),
  scopes: z.array(ScopeSchema),
  credential: z.string().min(1),
});
export type GrantProps = z.output<typeof GrantPropsSchema>;

/** The consent page's sign-in field (src/oauth/consent-page.ts draws it; signInOperator reads it). */
export const SIGN_IN_FIELD = { name: "token", label: "Your MCP token" } as const;

/** The fields of the consent post that signInOperator reads; the page's form validator includes them. */
export const SignInFieldsSchema = z.object({ [SIGN_IN_FIELD.name]: z.string().optional() });
type SignInFields = z.output<typeof SignInFieldsSchema>;

/**
 * The operator who posted the consent form, or why not. This one reads the
 * MCP token typed into the form; the request is here for providers that
 * vouch for the person in headers or cookies instead (Cloudflare Access).
 */
export async function signInOperator(
  config: Config,
  _request: Request,
  form: SignInFields,
): Promise<Result<SignedInOperator>> {
  const trimmed = (form[SIGN_IN_FIELD.name] ?? "").trim();
  if (trimmed === "") return fail("unauthorized", "enter your MCP token to sign in");
  const holder = await lookupToken(config.mcpTokens, trimmed);
  if (!holder) {
    const isApprover = (await lookupToken(config.approverTokens, trimmed)) !== undefined;
    return fail(
      "unauthorized",
      isApprover
        ? "approver tokens cannot sign in here; use the MCP token of the operator this app will act for"
        : "that is not a valid MCP token",
    );
  }
  return ok({ ...holder, credential: base64url(await tokenDigest(trimmed)) });
}

function digestBytes(credential: string): ArrayBuffer {
  try {
    const binary = atob(credential.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0)).buffer;
  } catch {
    return new ArrayBuffer(0);
  }
}

/** The grant's operator as configuration knows them now, or undefined once the signing token is gone or reassigned. */
export async function grantStillValid(config: Config, props: GrantProps): Promise<McpTokenHolder | undefined> {
  const holder = await lookupTokenDigest(config.mcpTokens, digestBytes(props.credential));
  if (!holder || holder.account !== props.account || holder.operator !== props.operator) return undefined;
  return holder;
}

/** What may be granted: the scopes chosen on the page, within what the signed-in operator holds. */
export function grantableScopes(chosen: readonly Scope[], operator: SignedInOperator): Result<Scope[]> {
  const beyond = chosen.filter((scope) => !operator.scopes.includes(scope));
  if (beyond.length > 0)
    return fail(
      "forbidden",
      `your token does not hold ${beyond.join(", ")}, so you cannot grant it; it holds ${operator.scopes.join(", ")}`,
    );
  if (chosen.length === 0) return fail("bad_request", "choose at least one thing the app may do");
  return ok([...chosen]);
}

/**
 * The library's user id for an operator's grants. Every code and token the
 * library issues begins with it in plain text, so it names nobody: a digest
 * of the account and the operator, the same for every grant of that operator
 * (so /oauth/grants finds them all), from which neither name can be read.
 * The names themselves are kept in the grant's metadata. No ":", which the
 * library's token format reserves.
 */
export async function grantUserId(operator: { readonly account: string; readonly operator: string }): Promise<string> {
  const digest = await tokenDigest(`order-ops-edge grant user\n${operator.account}\n${operator.operator}`);
  return `op-${base64url(digest).slice(0, 22)}`;
}

/**
 * The readable form, account/operator, under which older grants may be filed: they stay listable and revocable until
 * they expire.
 */
export function readableGrantUserId(operator: { readonly account: string; readonly operator: string }): string {
  return `${operator.account}/${encodeURIComponent(operator.operator)}`;
}
