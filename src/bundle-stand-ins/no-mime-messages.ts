/**
 * Stands in for `mimetext` in the deployed bundle (see [alias] in wrangler.toml).
 * `agents` loads it only to reply to an email an Agent received; Order Ops
 * Edge receives no email, and mimetext with its MIME type database is about a
 * tenth of the bundle.
 */
export function createMimeMessage(): never {
  throw new Error(
    "mimetext is not part of this Worker's bundle (wrangler.toml [alias]); Order Ops Edge does not reply to email",
  );
}
