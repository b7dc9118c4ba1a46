/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import page from "../../docs/configuration.md?raw";
import readme from "../../README.md?raw";
import { EnvVarsSchema } from "../../src/config/env-vars";

// docs/configuration.md's table is where a deployer looks up a variable, so it
// is held to the schema that reads them: the same names, the same defaults,
// the same ranges, and every binding it names really bound.

interface Row {
  readonly name: string;
  readonly kind: string;
  readonly defaults: string;
  readonly meaning: string;
}

const rows: Row[] = page
  .split("\n")
  .map((line) => /^\| `([A-Z0-9_]+)` \| ([^|]+) \| ((?:[^|\\]|\\\|)+) \| (.*) \|$/.exec(line))
  .flatMap((match) =>
    match
      ? [
          {
            name: match[1] ?? "",
            kind: (match[2] ?? "").trim(),
            defaults: (match[3] ?? "").trim(),
            meaning: match[4] ?? "",
          },
        ]
      : [],
  );
/** The README's short table of what a deployment sets: name and kind. */
const brief = readme.split("\n").flatMap((line) => {
  const match = /^\| `([A-Z0-9_]+)` \| ([^|]+) \|/.exec(line);
  return match ? [{ name: match[1] ?? "", kind: (match[2] ?? "").trim() }] : [];
});
const variables = rows.filter((row) => row.kind === "var" || row.kind === "secret");
const bindings = rows.filter((row) => row.kind.includes("binding"));
const fields = EnvVarsSchema.shape as Record<string, (typeof EnvVarsSchema.shape)[keyof typeof EnvVarsSchema.shape]>;

/** A parsed default as the table writes it: switches as on/off, everything else as typed. */
function written(value: unknown): string {
  return typeof value === "boolean" ? (value ? "on" : "off") : String(value);
}

describe("docs/configuration.md", () => {
  it("has one row per variable the schema reads, and no row for one it does not", () => {
    expect(rows.length).toBeGreaterThan(30);
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
    const schemaNames = Object.keys(fields).filter((name) => !bindings.some((row) => row.name === name));
    expect(variables.map((row) => row.name).sort()).toEqual(schemaNames.sort());
  });

  it("the README's short table names only rows of the full one, with the same kind", () => {
    expect(brief.length).toBeGreaterThan(3);
    expect(brief).toEqual(brief.map(({ name }) => ({ name, kind: rows.find((row) => row.name === name)?.kind })));
  });

  it.each(variables.map((row) => [row.name, row] as const))(
    "%s: the default it states is the schema's",
    (name, row) => {
      const parsed = fields[name]?.safeParse(undefined);
      expect(parsed?.success).toBe(true);
      const value = parsed?.data;
      if (value === undefined) {
        // Unset means off or absent; a development-only value may still be named.
        expect(row.defaults).toMatch(/^(?:none|off|`[^`]+` in development)/);
      } else {
        expect(row.defaults.startsWith(`\`${written(value)}\``)).toBe(true);
      }
    },
  );

  it.each(
    variables.flatMap((row) => {
      const range = /\((\d+)–(\d+)[;)]/.exec(row.meaning);
      return range ? [[row.name, Number(range[1]), Number(range[2])] as const] : [];
    }),
  )("%s: the range it states, %d to %d, is the one the schema enforces", (name, low, high) => {
    const field = fields[name];
    expect(field?.safeParse(String(low)).success).toBe(true);
    expect(field?.safeParse(String(high)).success).toBe(true);
    expect(field?.safeParse(String(low - 1)).success).toBe(false);
    expect(field?.safeParse(String(high + 1)).success).toBe(false);
  });

  it.each(bindings.map((row) => row.name))("%s: the binding it names is bound in wrangler.toml", (name) => {
    expect(Object.keys(env)).toContain(name);
  });
});
