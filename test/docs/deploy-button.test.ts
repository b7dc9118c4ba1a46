/// <reference types="vite/client" />
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import example from "../../.dev.vars.example?raw";
import manifest from "../../package.json";
import readme from "../../README.md?raw";
import { parseConfig } from "../../src/config/config";
import { EnvVarsSchema } from "../../src/config/env-vars";
import wranglerToml from "../../wrangler.toml?raw";

// What the Deploy to Cloudflare button reads from the repository, as
// Cloudflare's templates declare it: the secrets it asks for come from
// .dev.vars.example, their descriptions from package.json's
// "cloudflare.bindings", and its deploy command is package.json's "deploy"
// script. A person who accepts the prefilled values must not get an open
// Worker: the placeholders are refused by production's own checks.

/** .dev.vars.example's entries, as dotenv reads them: NAME=value, quotes taken off, comments skipped. */
const exampleSecrets = Object.fromEntries(
  example.split("\n").flatMap((line) => {
    const entry = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!entry) return [];
    const value = (entry[2] ?? "").replace(/^'(.*)'$/s, "$1").replace(/^"(.*)"$/s, "$1");
    return [[entry[1] ?? "", value]];
  }),
);

/** The names in wrangler.toml's [vars]. */
const vars = (/^\[vars\]\n([\s\S]*?)^\[/m.exec(wranglerToml)?.[1] ?? "")
  .split("\n")
  .flatMap((line) => /^([A-Z][A-Z0-9_]*) = /.exec(line)?.[1] ?? []);

const described = manifest.cloudflare.bindings as Record<string, { description: string }>;

describe("the Deploy to Cloudflare button's declarations", () => {
  it(".dev.vars.example asks for the two token maps, each a secret the Worker reads", () => {
    expect(Object.keys(exampleSecrets)).toEqual(["MCP_TOKENS", "APPROVER_TOKENS"]);
    for (const name of Object.keys(exampleSecrets)) expect(Object.keys(EnvVarsSchema.shape)).toContain(name);
  });

  it("a deployed Worker refuses the placeholders, so the prefilled form cannot deploy an open Worker", () => {
    const result = parseConfig({
      ENVIRONMENT: "production",
      PUBLIC_BASE_URL: "https://order-ops-edge.ada.workers.dev",
      OAUTH_KV: env.OAUTH_KV,
      ...exampleSecrets,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.errors).toEqual([
      "the token for account acme is 10 characters; production tokens need at least 32 (try `openssl rand -hex 32`)",
      "the token for account acme is 14 characters; production tokens need at least 32 (try `openssl rand -hex 32`)",
    ]);
  });

  it("package.json describes every secret it asks for, and describes only secrets, [vars] and bindings that exist", () => {
    for (const name of Object.keys(exampleSecrets)) expect(described[name]?.description.length).toBeGreaterThan(40);
    const known = new Set([...Object.keys(exampleSecrets), ...vars, ...Object.keys(env)]);
    expect(Object.keys(described).filter((name) => !known.has(name))).toEqual([]);
    expect(vars.filter((name) => described[name] === undefined)).toEqual([]);
  });

  it("its deploy command is npm run deploy, the one-command deploy, and the README's button points at the button's address", () => {
    expect(manifest.scripts.deploy).toBe("node --experimental-strip-types scripts/deploy.ts");
    expect(readme).toMatch(
      /\[!\[Deploy to Cloudflare\]\(https:\/\/deploy\.workers\.cloudflare\.com\/button\)\]\(https:\/\/deploy\.workers\.cloudflare\.com\/\?url=https:\/\/github\.com\/[^)\s]+\)/,
    );
  });
});
