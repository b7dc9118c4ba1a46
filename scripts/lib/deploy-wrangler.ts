// Runs the commands `npm run deploy` is made of: `wrangler` and `npm` as the
// PATH finds them (npm puts this checkout's wrangler first; the tests put a
// fake one there). Each wrangler call gets its own output file
// (WRANGLER_OUTPUT_FILE_PATH), read back as structured entries.
//
// stdout is always a pipe, so wrangler runs non-interactively: it asks
// nothing (a prompt behind captured output would hang) and never writes the
// ids of the resources it creates into wrangler.toml.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Command } from "./deploy-commands.ts";
import { outputEntries, type Ran } from "./wrangler-output.ts";

export interface RunOptions {
  /** Written to the command's stdin (secret bulk reads its JSON there). */
  readonly input?: string;
  /** Also show what the command prints, as it prints it. */
  readonly echo?: boolean;
}

export interface Runner {
  run(command: Command, options?: RunOptions): Promise<Ran>;
  /** Removes the output files. */
  close(): void;
}

export function processRunner(cwd: string): Runner {
  const outputs = mkdtempSync(path.join(tmpdir(), "order-ops-deploy-"));
  let count = 0;
  return {
    run(command, options = {}) {
      count += 1;
      const outputFile = path.join(outputs, `${count}.ndjson`);
      const [program = "", ...args] = command;
      return new Promise((resolve) => {
        const child = spawn(program, args, {
          cwd,
          env: { ...process.env, WRANGLER_OUTPUT_FILE_PATH: outputFile },
          stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
          shell: process.platform === "win32",
        });
        let stdout = "";
        let stderr = "";
        child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          if (options.echo) process.stdout.write(chunk);
        });
        child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          if (options.echo) process.stderr.write(chunk);
        });
        child.stdin?.end(options.input);
        const finish = (status: number, extra = "") => {
          const entries = existsSync(outputFile) ? outputEntries(readFileSync(outputFile, "utf8")) : [];
          resolve({ status, stdout, stderr: stderr + extra, entries });
        };
        child.on("error", (error) => finish(127, `${program} could not be started: ${error.message}`));
        child.on("close", (code) => finish(code ?? 1));
      });
    },
    close() {
      rmSync(outputs, { recursive: true, force: true });
    },
  };
}
