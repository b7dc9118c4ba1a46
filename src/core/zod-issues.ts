/**
 * An issue as zod reports it, or as any Standard Schema does (the MCP SDK's
 * protocol schemas), whose path parts may be wrapped as `{ key }`.
 */
interface Issue {
  readonly message: string;
  readonly code?: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** `lines[0].quantity` style paths read better in an error list than dotted ones. */
function formatPath(path: Issue["path"], root: string): string {
  let out = "";
  for (const segment of path ?? []) {
    const part = typeof segment === "object" ? segment.key : segment;
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? root : out;
}

/**
 * One readable line per problem, naming the field, for API and config errors.
 * `root` names the value itself when a problem has no path; "" leaves it out.
 */
export function describeIssues(error: { readonly issues: readonly Issue[] }, root = "body"): string[] {
  return error.issues.map((issue) => {
    const where = formatPath(issue.path, root);
    if ((issue.code ?? "invalid_type") === "invalid_type" && /received undefined/.test(issue.message)) {
      return where === "" ? "a value is required" : `${where} is required`;
    }
    return where === "" ? issue.message : `${where}: ${issue.message}`;
  });
}
