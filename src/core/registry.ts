/**
 * A registry's entries, each under its own name (change kinds, generator
 * modes): an entry filed under another name does not compile.
 */
export function filedByName<T extends { readonly [K in keyof T]: { readonly name: K } }>(entries: T): T {
  return entries;
}
