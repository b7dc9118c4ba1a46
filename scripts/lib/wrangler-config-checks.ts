// What `npm run deploy:check` looks for in wrangler.toml beyond what wrangler
// itself checks: settings that would let a deploy go through and then run
// unsafely, or fail at Cloudflare's end. Pure, so the suite can test it; the
// script hands it the config as wrangler reads it.

export interface DeployedConfig {
  readonly vars: Readonly<Record<string, unknown>>;
  readonly d1_databases: readonly { readonly binding: string; readonly database_id?: string | undefined }[];
  readonly kv_namespaces: readonly { readonly binding: string; readonly id?: string | undefined }[];
}

/**
 * The all-zero ids wrangler.toml carried before wrangler created the resources itself (the D1 one with a UUID's version
 * and variant digits).
 */
function isPlaceholderId(id: string | undefined): boolean {
  if (id === undefined) return false;
  return /^0+$/.test(id.replace(/-/g, "")) || id === "00000000-0000-4000-8000-000000000000";
}

/** Each problem is one sentence saying what to change; deploy:check fails on any. */
export function wranglerConfigProblems(config: DeployedConfig): string[] {
  const problems: string[] = [];
  if (Object.hasOwn(config.vars, "ENVIRONMENT")) {
    problems.push(
      `wrangler.toml [vars] sets ENVIRONMENT = ${JSON.stringify(config.vars.ENVIRONMENT)}: remove it. A deployed Worker runs as production, the default; any other value switches off every production check (development tokens, PUBLIC_BASE_URL, OAUTH_KV). Set ENVIRONMENT only in .dev.vars, which wrangler deploy never reads`,
    );
  }
  // No id is the norm: wrangler deploy creates or links the resource. An all-zero one would be sent to Cloudflare and
  // refused there.
  for (const database of config.d1_databases) {
    if (isPlaceholderId(database.database_id)) {
      problems.push(
        `the D1 database ${database.binding} has the all-zero placeholder database_id: remove that line from wrangler.toml; wrangler deploy then links the database named by database_name, creating it the first time`,
      );
    }
  }
  for (const namespace of config.kv_namespaces) {
    if (isPlaceholderId(namespace.id)) {
      problems.push(
        `the KV namespace ${namespace.binding} has the all-zero placeholder id: remove that line from wrangler.toml; wrangler deploy then creates the namespace the first time and keeps it after`,
      );
    }
  }
  return problems;
}
