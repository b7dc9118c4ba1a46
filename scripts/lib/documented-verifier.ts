// The signature checks docs/webhooks.md shows receivers, loaded from that page
// itself: the test suite's receiver and the smoke run's both verify every
// delivery with exactly that code (the standardwebhooks library's), so the documented
// examples cannot drift from what the Worker signs.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The documented Standard Webhooks check: the parsed event, or a throw. */
export type VerifyWebhook = (secret: string, rawBody: string, headers: Readonly<Record<string, string>>) => unknown;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PAGE = "docs/webhooks.md";
export const STANDARD_VERIFIER = "verifyOrderOpsWebhook";
/**
 * Where a block is written to be imported: inside the repository, so that its
 * `import … from "standardwebhooks"` resolves to node_modules as in a
 * receiver's project (a data: URL resolves no package names).
 */
const BLOCKS_DIR = path.join(root, "node_modules", ".cache", "documented-verifiers");

/** The page's JavaScript block that exports `functionName`. */
export function documentedVerifierSource(
  functionName: string,
  page = readFileSync(path.join(root, PAGE), "utf8"),
): string {
  const blocks = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const source = blocks.find((block) => block.includes(`export function ${functionName}(`));
  if (source === undefined) throw new Error(`${PAGE} has no \`\`\`js block that exports ${functionName}`);
  return source;
}

/**
 * The block as a receiver that copies it would run it: a module of its own, in a project with the package installed.
 */
async function loadBlock(functionName: string): Promise<unknown> {
  const source = documentedVerifierSource(functionName);
  const file = path.join(
    BLOCKS_DIR,
    `${functionName}-${createHash("sha256").update(source).digest("hex").slice(0, 16)}.mjs`,
  );
  mkdirSync(BLOCKS_DIR, { recursive: true });
  // Written under another name and renamed, so a test run and a smoke run starting together never read half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, source);
  renameSync(partial, file);
  const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
  const verify = module[functionName];
  if (typeof verify !== "function") throw new Error(`${PAGE}'s block does not export a function ${functionName}`);
  return verify;
}

export interface DocumentedVerifiers {
  /** True when the documented standardwebhooks check accepts the delivery. */
  readonly verify: (secret: string, rawBody: string, headers: Readonly<Record<string, string>>) => boolean;
}

export async function loadDocumentedVerifiers(): Promise<DocumentedVerifiers> {
  const standard = (await loadBlock(STANDARD_VERIFIER)) as VerifyWebhook;
  return {
    verify: (secret, rawBody, headers) => {
      try {
        standard(secret, rawBody, headers);
        return true;
      } catch {
        return false;
      }
    },
  };
}
