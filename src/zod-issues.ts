import type { z } from "zod";

/** `lines[0].quantity` style paths read better in an error list than dotted ones. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "body" : out;
}

/** One readable line per problem, naming the field, for API and config errors. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = formatPath(issue.path);
    if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
      return `${where} is required`;
    }
    return `${where}: ${issue.message}`;
  });
}
