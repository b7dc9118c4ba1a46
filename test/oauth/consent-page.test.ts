import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { describe, expect, it } from "vitest";
import { consentPage } from "../../src/oauth/consent-page";

// The consent page as drawn, without the OAuth flow: here a client whose id is
// a Client ID Metadata Document (claude.ai's kind), which the flow tests, with
// their dynamically registered clients, never reach.

const CIMD_CLIENT: ConsentDescription = {
  clientId: "https://claude.ai/oauth/mcp-oauth-client-metadata",
  clientName: "Claude",
  clientDomain: "claude.ai",
  redirectUri: "https://claude.ai/api/mcp/auth_callback",
  redirectHost: "claude.ai",
  redirectIsLoopback: false,
  scope: ["orders:read"],
};

async function render(consent: ConsentDescription): Promise<string> {
  return String(await consentPage({ consent, handle: "handle-1", checked: ["orders:read"] }));
}

describe("a client published by a domain (Client ID Metadata Document)", () => {
  it("names the domain that vouches for it, instead of calling its name unverified", async () => {
    const html = await render(CIMD_CLIENT);
    expect(html).toContain("<h1>Connect Claude to Order Ops Edge?</h1>");
    expect(html).toContain(
      "<p>Published by <strong>claude.ai</strong> (its client id is a document on that domain).</p>",
    );
    expect(html).not.toContain("registered itself");
    expect(html).toContain(
      "access is sent to <strong>claude.ai</strong>:<br><code>https://claude.ai/api/mcp/auth_callback</code>",
    );
    expect(html).not.toContain("an app on this computer");
  });

  it("escapes the domain like everything else a client controls", async () => {
    const html = await render({ ...CIMD_CLIENT, clientDomain: 'evil.example"><script>alert(1)</script>' });
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("Published by <strong>evil.example&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</strong>");
  });
});
