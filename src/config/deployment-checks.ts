/**
 * What a deployed (ENVIRONMENT=production) Worker must have before it serves
 * anyone. Each problem is one sentence saying what to set; none of them
 * repeats a secret.
 */

/**
 * The tokens .dev.vars ships with. They are committed, so anyone can read
 * them: a deployed Worker that accepts one is open to the world.
 * test/config/deployment-checks.test.ts keeps this list in step with .dev.vars.
 */
export const DEVELOPMENT_TOKENS: ReadonlySet<string> = new Set([
  "acme-dev-token",
  "globex-dev-token",
  "acme-approver-dev-token",
  "globex-approver-dev-token",
  "acme-second-approver-dev-token",
  "acme-viewer-dev-token",
  "acme-viewer-mcp-dev-token",
  "acme-admin-dev-token",
  "acme-admin-approver-dev-token",
]);

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A host name (as URL.hostname spells it) of this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** A URL on this machine: in development http is acceptable there, and OAuth allows it for `wrangler dev`. */
export function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

interface DeploymentFacts {
  /** Whether the OAUTH_KV binding is there. */
  readonly hasOauthKv: boolean;
  readonly publicBaseUrl: string | undefined;
  /** Every configured token (MCP and approver). */
  readonly tokens: readonly string[];
}

/** A KV namespace binding, as far as the checks can tell: an object that can get. */
export function isKvBinding(binding: unknown): boolean {
  return typeof binding === "object" && binding !== null && typeof (binding as { get?: unknown }).get === "function";
}

export function deploymentProblems(facts: DeploymentFacts): string[] {
  const problems: string[] = [];
  if (facts.publicBaseUrl === undefined) {
    problems.push(
      "PUBLIC_BASE_URL is required: `npm run deploy` sets it to the Worker's workers.dev address, or set it in wrangler.toml [vars] to the Worker's public URL, like https://order-ops-edge.<you>.workers.dev",
    );
  } else if (isLoopbackUrl(facts.publicBaseUrl)) {
    // Approval links and the OAuth issuer would point at the machine of whoever opens them.
    problems.push(
      `PUBLIC_BASE_URL is ${facts.publicBaseUrl}, an address on this machine that nobody else can reach; set it to the Worker's public URL, like https://order-ops-edge.<you>.workers.dev (to try the Worker locally, set ENVIRONMENT=development)`,
    );
  } else if (new URL(facts.publicBaseUrl).protocol !== "https:") {
    problems.push(`PUBLIC_BASE_URL must use https (OAuth 2.1 requires it)`);
  }
  const devTokens = facts.tokens.filter((token) => DEVELOPMENT_TOKENS.has(token)).length;
  if (devTokens > 0) {
    problems.push(
      `${devTokens} configured token(s) are the local development tokens from .dev.vars, which anyone can read; set your own with \`wrangler secret put MCP_TOKENS\` and \`wrangler secret put APPROVER_TOKENS\` (make each with \`openssl rand -hex 32\`)`,
    );
  }
  if (!facts.hasOauthKv) {
    problems.push(
      'the OAUTH_KV binding is missing: add [[kv_namespaces]] binding = "OAUTH_KV" to wrangler.toml and deploy again (`npm run deploy`); wrangler creates the namespace',
    );
  }
  return problems;
}
