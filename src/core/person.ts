/**
 * People the configuration names (operators, approvers) and the records that
 * remember them. A person is told apart by an identity, never by how their
 * name looks: two tokens whose names differ only by an invisible or look-alike
 * character are two entries, and the configuration refuses such a pair (see
 * config/token-maps.ts). Names are still compared, normalized, as a second
 * guard: a proposer is never let approve under a name that reads the same.
 *
 * "Reads the same" is Unicode's own answer (UTS #39): the confusable skeleton,
 * which maps a Cyrillic А or a Greek ο to the Latin letter it imitates. NFKC
 * and case folding alone let `Аvery` (Cyrillic) stand beside `Avery`.
 */
import { CONFUSABLE_LINES } from "./confusable-table";

export interface Person {
  /** Stable and unique per person: an explicit `id` in the token map, or one derived from the token itself. */
  readonly id: string;
  /** As shown to people and written in the audit trail. */
  readonly name: string;
}

/** Zero-width spaces and joiners, soft hyphens, byte-order marks, Hangul fillers, variation selectors. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
/** Every kind of whitespace: no-break, thin, ideographic, line and paragraph separators. */
const WHITESPACE = /[\s\p{Z}]+/gu;
/**
 * Characters drawn as a blank that Unicode counts neither as space nor (Braille) as ignorable: the Hangul fillers
 * and the Braille blank. Read as the space they show, not removed: removed, `Avery\u3164Approver` became another
 * name than `Avery Approver` while looking just like it.
 */
const BLANKS = /[\u115f\u1160\u3164\uffa0\u2800]/gu;

/**
 * A name as stored and shown: NFKC (full-width letters become plain ones), invisible characters removed, each run of
 * whitespace one space.
 */
export function displayName(name: string): string {
  return name.normalize("NFKC").replace(BLANKS, " ").replace(INVISIBLE, "").replace(WHITESPACE, " ").trim();
}

let prototypes: Map<string, string> | undefined;

/** Each confusable character's prototype (src/core/confusable-table.ts, from Unicode's confusables.txt). */
function prototypeOf(char: string): string {
  prototypes ??= new Map(CONFUSABLE_LINES.split("\n").map((line) => line.split("\t") as [string, string]));
  return prototypes.get(char) ?? char;
}

/** UTS #39 skeleton: NFD, each character to its prototype, NFD again. */
function skeleton(text: string): string {
  return Array.from(text.normalize("NFD"), prototypeOf).join("").normalize("NFD");
}

/**
 * What two names must share to be the same name: the display name, case-folded ("ß" and "SS" alike), as its
 * confusable skeleton (`Аvery` with a Cyrillic А and `Avery` alike).
 */
export function nameKey(name: string): string {
  return skeleton(displayName(name).toUpperCase().toLowerCase().normalize("NFKC"));
}

/** Whether two records name one person: the same identity where both have one, or names that read the same. */
export function samePerson(
  a: { readonly id?: string | null | undefined; readonly name: string },
  b: { readonly id?: string | null | undefined; readonly name: string },
): boolean {
  if (a.id && b.id && a.id === b.id) return true;
  return nameKey(a.name) === nameKey(b.name);
}
