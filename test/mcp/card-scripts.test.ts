/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { CARD_SCRIPTS, CARD_SOURCES } from "../../src/mcp/cards/card-scripts";
import { orderCards } from "../../src/mcp/tools/orders.tools";

// The cards' scripts are built from cards/ by `npm run cards` into a module
// that is committed. This fails when a source changed after the last build,
// so a card never ships older than its source (`npm run typecheck` compares
// the whole module with a fresh build).

const cardSources = import.meta.glob<string>("../../cards/**/*.ts", { query: "?raw", import: "default", eager: true });
const serverSources = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });
const byPath = new Map(
  Object.entries({ ...cardSources, ...serverSources }).map(([key, text]) => [key.replace(/^\.\.\/\.\.\//, ""), text]),
);

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

const REBUILD = "changed since the last `npm run cards`: run it and commit src/mcp/cards/card-scripts.ts";

describe("the built card scripts", () => {
  it("were built from the sources as they are now", async () => {
    expect(Object.keys(CARD_SOURCES)).toEqual(
      expect.arrayContaining(["cards/host.ts", "src/orders/labels.ts", "src/proposals/status-labels.ts"]),
    );
    const changed = [];
    for (const [file, hash] of Object.entries(CARD_SOURCES)) {
      const text = byPath.get(file);
      if (text === undefined || (await sha256(text)) !== hash) changed.push(file);
    }
    expect(changed, REBUILD).toEqual([]);
  });

  it("cover every file of cards/ and one script per card entry, each served by a card", () => {
    const files = Object.keys(cardSources).map((key) => key.replace(/^\.\.\/\.\.\//, ""));
    expect(
      files.filter((file) => !Object.hasOwn(CARD_SOURCES, file)),
      REBUILD,
    ).toEqual([]);
    const entries = files.flatMap((file) => /^cards\/([a-z0-9-]+-card)\.ts$/.exec(file)?.[1] ?? []).sort();
    expect(Object.keys(CARD_SCRIPTS).sort(), REBUILD).toEqual(entries);
    expect(orderCards.map((card) => card.name).sort()).toEqual(entries);
  });

  it("each card's document carries its own script", () => {
    for (const card of orderCards)
      expect(card.html).toContain(`<script>${CARD_SCRIPTS[card.name as keyof typeof CARD_SCRIPTS]}</script>`);
  });
});
