import { mcpResource, type OAuthSettings } from "../auth/mcp-resource";
import type { McpCaller, OAuthCaller } from "../auth/operator";
import type { Config } from "../config/config";
import { knownScopes } from "../core/scopes";
import { authorizationServer } from "./authorization-server";
import { GrantPropsSchema, grantStillValid } from "./operator-sign-in";

/**
 * An OAuth access token issued for /mcp, as the operator and scopes it acts
 * with now: the token's scopes, narrowed to what the operator who signed the
 * grant still holds. A grant whose signing token was removed or rotated is
 * worth nothing.
 */
export function oauthCaller(config: Config, oauth: OAuthSettings, env: Env): OAuthCaller {
  return async (token): Promise<McpCaller | undefined> => {
    const validated = await authorizationServer(oauth).validateToken(mcpResource(oauth), token, env);
    if (!validated) return undefined;
    const props = GrantPropsSchema.safeParse(validated.props);
    if (!props.success) return undefined;
    const signer = await grantStillValid(config, props.data);
    if (!signer) return undefined;
    const scopes = knownScopes(validated.scope).filter((scope) => signer.scopes.includes(scope));
    return { account: signer.account, id: signer.id, operator: signer.operator, role: signer.role, scopes };
  };
}
