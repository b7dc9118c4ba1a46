// A fake Cloudflare for scripts/deploy.ts: a folder holding the account
// (fake-account.ts) and a bin/ with `wrangler` and `npm` that run
// fake-cli.ts, put first on the script's PATH. Nothing reaches the network.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { deployTargetOf } from "../../scripts/lib/deploy-plan.ts";
import { clearCalls, type FakeAccount, readAccount, readCalls, writeAccount } from "./fake-account.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FAKE_CLI = path.join(root, "test", "node", "fake-cli.ts");

/** wrangler.toml as the deploy reads it, so the fake answers for the real Worker, database and queues. */
function configOf(): FakeAccount["config"] {
  const config = unstable_readConfig({ config: path.join(root, "wrangler.toml") }, { hideWarnings: true });
  const target = deployTargetOf(config);
  if (!target.ok) throw new Error(target.error.message);
  const producers = (config.queues.producers ?? []).map((producer: { queue: string }) => producer.queue);
  return { worker: target.value.worker, database: target.value.database, queues: target.value.queues, producers };
}

/** Logged in to one account with a workers.dev subdomain, and nothing of this Worker's on it yet. */
export function freshAccount(change: Partial<FakeAccount> = {}): FakeAccount {
  return {
    loggedIn: true,
    email: "ada@example.com",
    accounts: [{ id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9", name: "Ada's Account" }],
    subdomain: "ada",
    queues: {},
    databases: {},
    kvNamespaces: [],
    worker: null,
    checkPasses: true,
    config: configOf(),
    ...change,
  };
}

export interface Finished {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Variables of this machine that would change what the deploy does. */
const SCRUBBED = /^(?:CI|WORKERS_CI|CLOUDFLARE_.*|ORDER_OPS_.*|WRANGLER_OUTPUT_FILE_.*)$/;

export class FakeCloudflare {
  readonly dir = mkdtempSync(path.join(tmpdir(), "fake-cloudflare-"));
  readonly bin = path.join(this.dir, "bin");

  constructor(account: FakeAccount) {
    mkdirSync(this.bin);
    for (const tool of ["wrangler", "npm"]) {
      const wrapper = path.join(this.bin, tool);
      writeFileSync(
        wrapper,
        `#!/bin/sh\nexec "${process.execPath}" --experimental-strip-types --disable-warning=ExperimentalWarning "${FAKE_CLI}" ${tool} "$@"\n`,
      );
      chmodSync(wrapper, 0o755);
    }
    writeAccount(this.dir, account);
    clearCalls(this.dir);
  }

  account(): FakeAccount {
    return readAccount(this.dir);
  }

  change(change: Partial<FakeAccount>): void {
    writeAccount(this.dir, { ...this.account(), ...change });
  }

  /** Every command run since the last `forgetCalls`, as typed: `wrangler queues info order-ops-outbox`. */
  calls(): string[] {
    return readCalls(this.dir).map((call) => [call.tool, ...call.args].join(" "));
  }

  forgetCalls(): void {
    clearCalls(this.dir);
  }

  /** Runs `npm run deploy -- <args>` against this account. */
  deploy(args: readonly string[] = [], env: Readonly<Record<string, string>> = {}): Promise<Finished> {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SCRUBBED.test(name)));
    const child = spawn(
      process.execPath,
      ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", "scripts/deploy.ts", ...args],
      {
        cwd: root,
        env: {
          ...inherited,
          ...env,
          PATH: `${this.bin}${path.delimiter}${process.env.PATH}`,
          FAKE_CLOUDFLARE_DIR: this.dir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    return new Promise((resolve) => child.on("close", (status) => resolve({ status: status ?? 1, stdout, stderr })));
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
