// The signature check docs/webhooks.md shows receivers, loaded from that page
// itself: the test suite's receiver and the smoke run's both verify every
// delivery with exactly that code, so the documented example cannot drift
// from what the Worker signs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type VerifySignature = (
  secret: string,
  signatureHeader: string | undefined,
  rawBody: string,
  nowSeconds?: number,
) => boolean;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PAGE = "docs/webhooks.md";
const FUNCTION_NAME = "verifyOrderOpsSignature";

/** The page's JavaScript block that defines the verifier. */
export function documentedVerifierSource(page = readFileSync(path.join(root, PAGE), "utf8")): string {
  const blocks = [...page.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const source = blocks.find((block) => block.includes(`export function ${FUNCTION_NAME}(`));
  if (source === undefined) throw new Error(`${PAGE} has no \`\`\`js block that exports ${FUNCTION_NAME}`);
  return source;
}

/** The verifier, as a receiver that copies the documented block would run it. */
export async function loadDocumentedVerifier(): Promise<VerifySignature> {
  const url = `data:text/javascript;base64,${Buffer.from(documentedVerifierSource()).toString("base64")}`;
  const module = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  const verify = module[FUNCTION_NAME];
  if (typeof verify !== "function") throw new Error(`${PAGE}'s block does not export a function ${FUNCTION_NAME}`);
  return verify as VerifySignature;
}
