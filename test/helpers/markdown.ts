// Just enough Markdown for the documentation checks: headings as GitHub
// anchors them, links outside code, and the words inside code.

/** A page's lines with fenced code blocks marked, so prose checks can skip code. */
function linesWithFences(page: string): { text: string; inCode: boolean }[] {
  let inCode = false;
  return page.split("\n").map((text) => {
    if (text.startsWith("```")) {
      inCode = !inCode;
      return { text, inCode: true };
    }
    return { text, inCode };
  });
}

/** The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text, inCode } of linesWithFences(page)) {
    const heading = /^#{1,6} (.*)$/.exec(text);
    if (inCode || !heading) continue;
    const slug = (heading[1] ?? "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const repeats = seen.get(slug) ?? 0;
    anchors.add(repeats === 0 ? slug : `${slug}-${repeats}`);
    seen.set(slug, repeats + 1);
  }
  return anchors;
}

/** Every `[text](target)` outside code, as its target. */
export function linkTargets(page: string): string[] {
  const targets: string[] = [];
  for (const { text, inCode } of linesWithFences(page)) {
    if (inCode) continue;
    const prose = text.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\[[^\]]+\]\(([^)\s]+)\)/g)) targets.push(match[1] ?? "");
  }
  return targets;
}

/** Every whitespace-separated word inside code: fenced blocks and `inline spans`. */
export function codeWords(page: string): string[] {
  const words: string[] = [];
  for (const { text, inCode } of linesWithFences(page)) {
    const code = inCode ? [text] : [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
    for (const piece of code) words.push(...piece.split(/\s+/).filter((word) => word !== ""));
  }
  return words;
}
