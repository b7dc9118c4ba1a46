// A fake `wrangler` and `npm` for the deploy script's tests, put first on
// PATH by fake-cloudflare.ts: `node fake-cli.ts <tool> <args...>`. It logs the
// call, answers from the account in FAKE_CLOUDFLARE_DIR as the real tool
// would, and saves the account as the answer left it.
import { appendFileSync, readFileSync } from "node:fs";
import { logCall, readAccount, writeAccount } from "./fake-account.ts";
import { answerWrangler } from "./fake-wrangler.ts";

const dir = process.env.FAKE_CLOUDFLARE_DIR;
if (!dir) throw new Error("FAKE_CLOUDFLARE_DIR is not set");
const [tool = "", ...args] = process.argv.slice(2);
logCall(dir, { tool, args });
const account = readAccount(dir);

if (tool === "npm") {
  // Only `npm run deploy:check` is expected; its real run is covered by CI.
  const known = args.join(" ") === "run deploy:check";
  const passes = known && account.checkPasses;
  process.stdout.write(passes ? "deploy:check ok\n" : "");
  if (!passes)
    process.stderr.write(known ? "\ndeploy:check failed at: the dry-run build\n" : `fake npm: ${args.join(" ")}?\n`);
  process.exit(passes ? 0 : 1);
}

const input = args.includes("bulk") ? readFileSync(0, "utf8") : "";
const { account: after, answer } = answerWrangler(account, args, input, process.env);
writeAccount(dir, after);
const outputFile = process.env.WRANGLER_OUTPUT_FILE_PATH;
if (outputFile) {
  const session = { type: "wrangler-session", version: 1, wrangler_version: "4.156.2", command_line_args: args };
  const lines = [session, ...answer.entries].map((entry) =>
    JSON.stringify({ ...entry, timestamp: "2026-12-06T08:00:00.000Z" }),
  );
  appendFileSync(outputFile, `${lines.join("\n")}\n`);
}
process.stdout.write(answer.stdout);
process.stderr.write(answer.stderr);
process.exit(answer.status);
