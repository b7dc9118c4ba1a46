import type { z } from "zod/v4";

/** `lines[0].quantity` style paths read better in an error list than dotted ones. */
function formatPath(path: readonly PropertyKey[], root: string): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? root : out;
}

/**
 * One readable line per problem, naming the field, for API and config errors.
 * `root` names the value itself when a problem has no path; "" leaves it out.
 */
export function describeIssues(error: z.core.$ZodError, root = "body"): string[] {
  return error.issues.map((issue) => {
    const where = formatPath(issue.path, root);
    if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
      return where === "" ? "a value is required" : `${where} is required`;
    }
    return where === "" ? issue.message : `${where}: ${issue.message}`;
  });
}
