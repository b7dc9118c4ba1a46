import { describe, expect, it } from "vitest";
import { fixturesIn } from "../../scripts/lib/bundle-contents.ts";

// deploy:check's look inside the bundle: a conformance fixture's name in any
// module fails it. That the markers are names the fixtures really register is
// checked beside the fixtures (test/conformance/).

describe("fixturesIn", () => {
  it("a bundle without fixture names is clean, even with names that merely start alike", () => {
    expect(fixturesIn([{ name: "index.js", text: 'registerTool("check_target");"test_simple";"test://"' }])).toEqual(
      [],
    );
  });

  it("names every marker and the module it was found in", () => {
    const modules = [
      { name: "index.js", text: 'a.registerTool("test_simple_text",x)' },
      { name: "chunk.js", text: '"test://static-text" "test_simple_prompt"' },
    ];
    expect(fixturesIn(modules)).toEqual([
      "test_simple_text in index.js",
      "test://static-text in chunk.js",
      "test_simple_prompt in chunk.js",
    ]);
  });
});
