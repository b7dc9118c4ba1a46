import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultLines, intakeFaults } from "../../scripts/lib/dev-faults.mjs";

// What `npm run dev` prints before wrangler starts, as docs/troubleshooting.md
// quotes it, and its banner's line when INTAKE_FAULTS is on.

let taken: Server;
let port: number;
beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  port = (taken.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe("npm run dev on a port already taken", () => {
  it("stops before building anything, with the sentence docs/troubleshooting.md quotes", () => {
    const ran = spawnSync(process.execPath, ["scripts/dev.mjs", "--port", String(port)], { encoding: "utf8" });
    expect(ran.status).toBe(1);
    expect(ran.stderr.trim()).toBe(
      `Port ${port} is already in use, probably by another \`npm run dev\`. Stop that one, or start this one on another port:\n  npm run dev -- --port ${port + 1}`,
    );
    const quoted = ran.stderr
      .trim()
      .replaceAll(String(port + 1), "8788")
      .replaceAll(String(port), "8787");
    expect(readFileSync("docs/troubleshooting.md", "utf8")).toContain(quoted.replace(/:\n\s+/, ": "));
  });
});

describe("the banner and INTAKE_FAULTS", () => {
  it("says nothing of faults when they are off", () => {
    expect(faultLines(intakeFaults([], 'ENVIRONMENT = "development"\n', "[vars]\n"))).toEqual([]);
  });

  it("names the faults when --var, .dev.vars or wrangler.toml turns them on; --var wins, then .dev.vars", () => {
    const devVars = 'INTAKE_FAULTS = "latency=20ms"\n';
    const toml = '[vars]\nINTAKE_FAULTS = "fail=2%"\n';
    expect(intakeFaults(["--var", "INTAKE_FAULTS:stall=1000ms/5s"], devVars, toml)).toBe("stall=1000ms/5s");
    expect(intakeFaults(["--port", "8788"], devVars, toml)).toBe("latency=20ms");
    expect(intakeFaults([], "", toml)).toBe("fail=2%");
    // An empty --var turns them off whatever the files say.
    expect(intakeFaults(["--var", "INTAKE_FAULTS:"], devVars, toml)).toBe("");
    expect(faultLines("stall=1000ms/5s").join("\n")).toMatch(
      /^ {2}Faults {5}INTAKE_FAULTS is on \(stall=1000ms\/5s\): the built-in order API is slow or fails on purpose/,
    );
  });

  it("scripts/dev.mjs puts the line in its banner", () => {
    expect(readFileSync("scripts/dev.mjs", "utf8")).toContain(
      '...faultLines(intakeFaults(extraArgs, projectFile(".dev.vars"), projectFile("wrangler.toml"))),',
    );
  });
});
