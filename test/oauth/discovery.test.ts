import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/core/scopes";
import { fetchWithEnv } from "../helpers/app-with-env";
import { workerFetch } from "../helpers/mcp-client";
import { initializeRequest, postMcp } from "../helpers/mcp-raw";
import { ORIGIN, RESOURCE } from "../helpers/oauth";

// How an OAuth client (claude.ai, ChatGPT, the SDK) finds its way from a 401 on
// /mcp to the sign-in: RFC 9728 resource metadata, then RFC 8414 server metadata.

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
  scopes_supported: string[];
  response_types_supported: string[];
  grant_types_supported: string[];
  code_challenge_methods_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  client_id_metadata_document_supported: boolean;
  protected_resources: string[];
}

describe("discovery", () => {
  it("a 401 from /mcp points at the resource metadata", async () => {
    const response = await postMcp(initializeRequest(1, "2025-06-18"));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(
      `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it.each(["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])(
    "%s is the RFC 9728 document for /mcp, readable cross-origin",
    async (path) => {
      const response = await workerFetch(`${ORIGIN}${path}`, { headers: { origin: "https://claude.ai" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [ORIGIN],
        scopes_supported: [...SCOPES],
        bearer_methods_supported: ["header"],
        resource_name: "Order Ops Edge",
      });
    },
  );

  it("the RFC 8414 metadata requires PKCE S256 and offers CIMD, public clients and DCR", async () => {
    const response = await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as ServerMetadata;
    expect(metadata.issuer).toBe(ORIGIN);
    expect(metadata.authorization_endpoint).toBe(`${ORIGIN}/authorize`);
    expect(metadata.token_endpoint).toBe(`${ORIGIN}/oauth/token`);
    expect(metadata.revocation_endpoint).toBe(`${ORIGIN}/oauth/token`);
    expect(metadata.registration_endpoint).toBe(`${ORIGIN}/oauth/register`);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.response_types_supported).toEqual(["code"]);
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    // claude.ai uses a Client ID Metadata Document only when both of these are present.
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");
    expect(metadata.scopes_supported).toEqual([...SCOPES]);
    expect(metadata.protected_resources).toEqual([RESOURCE]);
  });

  it("an unknown well-known path is a 404", async () => {
    expect((await workerFetch(`${ORIGIN}/.well-known/nothing-here`)).status).toBe(404);
  });

  it("OAuth is off, with the reason, when the base URL cannot be an issuer (plain http on a LAN)", async () => {
    const response = await fetchWithEnv(
      new Request("http://192.168.1.20:8787/.well-known/oauth-authorization-server"),
      { PUBLIC_BASE_URL: "http://192.168.1.20:8787" },
    );
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toBe(
      "OAuth is off: its issuer, PUBLIC_BASE_URL (http://192.168.1.20:8787), must use https or be localhost; static MCP tokens still work",
    );
  });
});
