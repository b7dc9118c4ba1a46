import { describe, expect, it } from "vitest";
import { IntakeFaultsSchema } from "../../src/config/intake-faults";
import { failure, parsed } from "../helpers/config";

// INTAKE_FAULTS: the grammar, its readable refusals, and the production switch.

const DEV = { ENVIRONMENT: "development" };

function faults(spec: string) {
  const result = IntakeFaultsSchema.safeParse(spec);
  if (!result.success) throw new Error(result.error.issues.map((issue) => issue.message).join("; "));
  return result.data;
}

function problems(spec: string): readonly string[] {
  return failure({ ...DEV, INTAKE_FAULTS: spec }).errors ?? [];
}

describe("the INTAKE_FAULTS grammar", () => {
  it("reads every clause, in any order and with spaces after commas", () => {
    expect(faults("stall=1000ms/5s, latency=20ms,fail=2%")).toEqual({
      latencyMs: 20,
      failShare: 0.02,
      stall: { ms: 1000, everyMs: 5000 },
      spec: "stall=1000ms/5s, latency=20ms,fail=2%",
    });
    expect(faults("fail=0.5%,latency=1.5s")).toMatchObject({ latencyMs: 1500, failShare: 0.005, stall: null });
  });

  it("a clause left out adds nothing", () => {
    expect(faults("stall=1s/5s")).toMatchObject({ latencyMs: 0, failShare: 0, stall: { ms: 1000, everyMs: 5000 } });
  });

  it("is off unless set, and parses in development", () => {
    expect(parsed({}).intakeFaults).toBeUndefined();
    expect(parsed({ ...DEV, INTAKE_FAULTS: "latency=20ms" }).intakeFaults).toMatchObject({ latencyMs: 20 });
  });

  it.each([
    [
      "an unknown fault",
      "stal=1s/5s",
      'INTAKE_FAULTS: "stal=1s/5s" is not a fault; write stall=<time>/<period>, latency=<time> or fail=<percent>, e.g. stall=1000ms/5s,latency=20ms,fail=2%',
    ],
    [
      "a bare word",
      "slow",
      'INTAKE_FAULTS: "slow" is not a fault; write stall=<time>/<period>, latency=<time> or fail=<percent>, e.g. stall=1000ms/5s,latency=20ms,fail=2%',
    ],
    ["a duration without a unit", "latency=20", "INTAKE_FAULTS: latency=20: must be a duration like 250ms or 2s"],
    ["a share without %", "fail=0.02", "INTAKE_FAULTS: fail=0.02: must be a percentage like 2% or 0.5%"],
    ["a share over 100%", "fail=150%", "INTAKE_FAULTS: fail=150%: must be at most 100%"],
    ["a stall without its period", "stall=1s", "INTAKE_FAULTS: stall=1s: must be <stall>/<period>, like 1000ms/5s"],
    [
      "a stall as long as its period",
      "stall=5s/5s",
      "INTAKE_FAULTS: stall=5s/5s: the stall must be shorter than its period, or the API never answers",
    ],
    ["a stall of nothing", "stall=0ms/5s", "INTAKE_FAULTS: stall=0ms/5s: the stall must last longer than 0ms"],
    ["a latency over a minute", "latency=2000s", "INTAKE_FAULTS: latency=2000s: must be at most 60s"],
    ["the same fault twice", "latency=1ms,latency=2ms", "INTAKE_FAULTS: latency is given twice; give each fault once"],
  ])("refuses %s with a message naming the clause", (_label, spec, message) => {
    expect(problems(spec)).toEqual([message]);
  });

  it("reports every bad clause at once", () => {
    expect(problems("latency=fast,fail=2,stall=1s/5s")).toEqual([
      "INTAKE_FAULTS: latency=fast: must be a duration like 250ms or 2s",
      "INTAKE_FAULTS: fail=2: must be a percentage like 2% or 0.5%",
    ]);
  });
});

describe("INTAKE_FAULTS in production", () => {
  it("is refused unless INTAKE_FAULTS_IN_PRODUCTION says it is meant", () => {
    expect(failure({ INTAKE_FAULTS: "latency=20ms" }).errors).toEqual([
      "INTAKE_FAULTS makes the built-in order API slow or fail on purpose and is refused in production; remove it, or also set INTAKE_FAULTS_IN_PRODUCTION=on if this deployment is meant for fault drills",
    ]);
  });

  it("is applied when INTAKE_FAULTS_IN_PRODUCTION=on", () => {
    expect(parsed({ INTAKE_FAULTS: "fail=1%", INTAKE_FAULTS_IN_PRODUCTION: "on" }).intakeFaults).toMatchObject({
      failShare: 0.01,
    });
  });

  it("INTAKE_FAULTS_IN_PRODUCTION alone changes nothing", () => {
    expect(parsed({ INTAKE_FAULTS_IN_PRODUCTION: "on" }).intakeFaults).toBeUndefined();
  });
});
