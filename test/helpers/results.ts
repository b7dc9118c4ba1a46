import type { Result } from "../../src/core/errors";

/** The value of a Result the test expects to succeed; a failure stops the test with its code and message. */
export function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}
