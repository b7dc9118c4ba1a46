// What `npm run deploy:check` looks for in wrangler.toml beyond what wrangler
// itself checks: settings that let a deploy go through and then run unsafely
// (an error) or not at all (a warning). Pure, so the suite can test it; the
// script hands it the config as wrangler reads it.

export interface DeployedConfig {
  readonly vars: Readonly<Record<string, unknown>>;
  readonly d1_databases: readonly { readonly binding: string; readonly database_id?: string | undefined }[];
  readonly kv_namespaces: readonly { readonly binding: string; readonly id?: string | undefined }[];
}

export interface ConfigFindings {
  /** deploy:check fails on these. */
  readonly errors: readonly string[];
  /** Printed, never failing: the committed wrangler.toml carries placeholders and must pass CI. */
  readonly warnings: readonly string[];
}

/** The committed ids are all zeros (the D1 one with a UUID's version and variant digits). */
function isPlaceholderId(id: string | undefined): boolean {
  if (id === undefined) return false;
  return /^0+$/.test(id.replace(/-/g, "")) || id === "00000000-0000-4000-8000-000000000000";
}

export function wranglerConfigFindings(config: DeployedConfig): ConfigFindings {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (Object.hasOwn(config.vars, "ENVIRONMENT")) {
    errors.push(
      `wrangler.toml [vars] sets ENVIRONMENT = ${JSON.stringify(config.vars.ENVIRONMENT)}: remove it. A deployed Worker runs as production, the default; any other value switches off every production check (development tokens, PUBLIC_BASE_URL, OAUTH_KV). Set ENVIRONMENT only in .dev.vars, which wrangler deploy never reads`,
    );
  }
  for (const database of config.d1_databases) {
    if (isPlaceholderId(database.database_id)) {
      warnings.push(
        `the D1 database ${database.binding} still has the placeholder database_id: before \`npm run deploy\`, run \`npx wrangler d1 create order-ops-edge\` and put the id it prints in wrangler.toml`,
      );
    }
  }
  for (const namespace of config.kv_namespaces) {
    if (isPlaceholderId(namespace.id)) {
      warnings.push(
        `the KV namespace ${namespace.binding} still has the placeholder id: before \`npm run deploy\`, run \`npx wrangler kv namespace create ${namespace.binding}\` and put the id it prints in wrangler.toml`,
      );
    }
  }
  return { errors, warnings };
}
