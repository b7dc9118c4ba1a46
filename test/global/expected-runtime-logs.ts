// Runs in Node, around the whole suite. Three tests crash a Durable Object on
// purpose (simulateRestart in test/helpers/simulated-restart.ts), as a deploy
// or an eviction would, to prove that what it wrote survives. workerd reports
// each work item the crash cut short as an "uncaught exception" with a native
// stack, straight to the process's output, and the Workers test plugin lets
// through every report but its own teardown's. Those lines, and only those,
// are left out here, so that a green run shows nothing a reader must learn to
// ignore and any other uncaught exception still stands out.

/** The reason the tests give when they crash an object; a report naming another reason is printed as usual. */
export const SIMULATED_RESTART = "simulated restart";

const CRASH_REPORT = `jsg.Error: ${SIMULATED_RESTART}`;
const NATIVE_STACK = /^stack: \S*workerd@/;

type Write = typeof process.stdout.write;

function withoutCrashReports(write: Write): Write {
  let previousDropped = false;
  return function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array))
      return write.call(this, chunk as string, ...(rest as []));
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    const kept = text.split("\n").filter((line, index, lines) => {
      const drop = line.includes(CRASH_REPORT) || (previousDropped && NATIVE_STACK.test(line));
      if (line !== "" || index < lines.length - 1) previousDropped = drop;
      return !drop;
    });
    const out = kept.join("\n");
    if (out === "" || out === "\n") {
      const callback = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
      callback?.();
      return true;
    }
    return write.call(this, out, ...(rest as []));
  } as Write;
}

export default function setup(): () => void {
  const { stdout, stderr } = process;
  const original = { out: stdout.write, err: stderr.write };
  stdout.write = withoutCrashReports(original.out);
  stderr.write = withoutCrashReports(original.err);
  return () => {
    stdout.write = original.out;
    stderr.write = original.err;
  };
}
