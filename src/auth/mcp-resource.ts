/**
 * /mcp as an OAuth protected resource (RFC 9728): the URL tokens are issued
 * for, and where its metadata lives, which every /mcp challenge names so a
 * client (claude.ai, ChatGPT) can find the authorization server. The server
 * itself, its endpoints and pages are in oauth/.
 */
import type { Config } from "../config/config";

export type OAuthSettings = NonNullable<Config["oauth"]>;

const MCP_PATH = "/mcp";
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** The one resource tokens are issued for, and their audience. */
export function mcpResource(oauth: OAuthSettings): string {
  return `${oauth.issuer}${MCP_PATH}`;
}

/** The challenge that starts discovery: where the resource metadata lives. */
export function resourceMetadataChallenge(oauth: OAuthSettings): string {
  return `resource_metadata="${oauth.issuer}${RESOURCE_METADATA_PATH}"`;
}
