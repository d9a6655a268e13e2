import { describe, expect, it } from "vitest";
import {
  codePointBoundary,
  safePartialMarkdown,
  salvagePartialMarkdown,
} from "../../../src/bridge/reply/partial-markdown.js";
import { fencesBalanced } from "./fake-channel.js";

const safe = safePartialMarkdown;

describe("safePartialMarkdown", () => {
  it.each([
    ["plain text", "Hello there", "Hello there"],
    ["empty", "", ""],
    ["whitespace only", "  \n ", ""],
    ["complete bold", "**bold** done", "**bold** done"],
    ["complete answer ending in bold", "It is **done**", "It is **done**"],
  ])("leaves %s alone", (_name, input, expected) => {
    expect(safe(input)).toBe(expected);
  });

  it.each([
    ["code fence", "Try:\n```ts\nconst a = 1", "Try:\n```ts\nconst a = 1\n```"],
    ["code fence ending in a newline", "```py\nprint(1)\n", "```py\nprint(1)\n```"],
    ["tilde fence", "~~~\nraw", "~~~\nraw\n~~~"],
    ["longer fence", "````md\n```inner", "````md\n```inner\n````"],
    ["indented fence", "  ```\nx", "  ```\nx\n  ```"],
    ["inline code", "run `npm i", "run `npm i`"],
    ["double-backtick code", "a ``b ` c", "a ``b ` c``"],
    ["bold", "Hello **wor", "Hello **wor**"],
    ["bold with underscores", "Hello __wor", "Hello __wor__"],
    ["italic", "an *emph", "an *emph*"],
    ["italic underscore", "an _emph", "an _emph_"],
    ["strikethrough", "a ~~strike", "a ~~strike~~"],
    ["nested emphasis", "**a _b", "**a _b_**"],
    ["bold italic", "***x", "***x***"],
    ["emphasis around code", "use **b `c", "use **b `c`**"],
    ["trailing space before closing", "x **y ", "x **y**"],
    ["emphasis after a finished fence", "```\ncode\n```\nafter **b", "```\ncode\n```\nafter **b**"],
    ["emphasis after a link", "[t](u) ok *i", "[t](u) ok *i*"],
  ])("closes an open %s", (_name, input, expected) => {
    expect(safe(input)).toBe(expected);
  });

  it.each([
    ["an unfinished link destination", "see [docs](https://exa", "see"],
    ["an unfinished link text", "see [docs", "see"],
    ["link text waiting for its destination", "see [docs]", "see"],
    ["an unfinished image", "pic ![alt](http://x", "pic"],
    ["emphasis inside an unfinished link", "a [b **c", "a"],
    ["a bold opener with nothing after it", "Hello **", "Hello"],
    ["an italic opener with nothing after it", "Hello *", "Hello"],
    ["a delimiter run that may grow", "**bold*", "**bold**"],
    ["a closing backtick that may grow", "`a`", "`a`"],
    ["an empty inline code", "see `", "see"],
    ["a fence line whose language is arriving", "Code:\n```ty", "Code:"],
    ["a fence opened without content", "Code:\n```ts\n", "Code:"],
    ["a closing fence being typed", "```\nx\n``", "```\nx\n```"],
    ["a line that may become a fence", "Code:\n``", "Code:"],
    ["a trailing backslash", "end \\", "end"],
    ["half a surrogate pair", "emoji \ud83d", "emoji"],
    ["a zero-width joiner mid-emoji", "family 👨\u200d", "family 👨"],
  ])("holds back %s", (_name, input, expected) => {
    expect(safe(input)).toBe(expected);
  });

  it.each([
    ["a finished link", "see [docs](https://x.io/a_b) now", "see [docs](https://x.io/a_b) now"],
    ["brackets without a link", "see [1] now", "see [1] now"],
    ["snake_case", "snake_case_name and more", "snake_case_name and more"],
    ["a spaced asterisk", "2 * 3 = 6", "2 * 3 = 6"],
    ["list bullets", "* item\n* item2", "* item\n* item2"],
    ["an escaped asterisk", "a \\*b", "a \\*b"],
    ["a single tilde", "about ~5", "about ~5"],
    ["emphasis left open in an earlier paragraph", "para **open\n\nnext para", "para **open\n\nnext para"],
    ["emphasis left open in a heading", "# Title **x\nbody", "# Title **x\nbody"],
    ["emphasis left open before a list item", "a **b\n- item", "a **b\n- item"],
    ["markdown inside a code block", "```\n**not [bold\n", "```\n**not [bold\n```"],
    ["markdown inside inline code", "`**x` and", "`**x` and"],
  ])("shows %s as it is", (_name, input, expected) => {
    expect(safe(input)).toBe(expected);
  });

  const answer = [
    "# Homes in **Austin**\n\n",
    "Here are 3 options under $700k — see [the listing](https://example.com/homes?city=austin_tx) for more.\n\n",
    "1. **Mueller**: 3 bd, _quiet_ street, ~~$720k~~ $695k 🏡\n",
    "2. `Zilker`: close to the park 👨‍👩‍👧\n\n",
    '```json\n{ "beds": 3, "price": 695000 }\n```\n\n',
    "Prices with a * star are estimates; snake_case ids like home_id_42 are internal. Ünïcödé 東京。Done!",
  ].join("");

  it("turns every prefix of a realistic answer into well-formed markdown", () => {
    for (let end = 0; end <= answer.length; end++) {
      const prefix = answer.slice(0, end);
      const shown = safe(prefix);
      expect(fencesBalanced(shown), JSON.stringify(prefix)).toBe(true);
      expect(safe(shown), `idempotent at ${end}`).toBe(shown);
      // Nothing invented: without the closing markup, the view is a prefix of what arrived.
      expect(prefix.startsWith(shown.replace(/[\s`*_~]+$/, "")), JSON.stringify(shown)).toBe(true);
      const last = shown.charCodeAt(shown.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
    }
  });

  it("shows a complete answer unchanged", () => {
    expect(safe(answer)).toBe(answer);
  });

  it("never shows a half-finished link", () => {
    const text = "Read [the guide](https://example.com/guide) first.";
    for (let end = 0; end <= text.length; end++) {
      const shown = safe(text.slice(0, end));
      if (shown.includes("[")) expect(shown).toContain("[the guide](https://example.com/guide)");
    }
  });
});

describe("codePointBoundary", () => {
  it("moves a cut out of a surrogate pair", () => {
    const text = "a😀b";
    expect(codePointBoundary(text, 0)).toBe(0);
    expect(codePointBoundary(text, 1)).toBe(1);
    expect(codePointBoundary(text, 2)).toBe(1);
    expect(codePointBoundary(text, 3)).toBe(3);
    expect(codePointBoundary(text, 99)).toBe(4);
    expect(codePointBoundary("x\ud83d", 2)).toBe(1);
  });

  it("leaves multi-unit letters and CJK alone", () => {
    const text = "Ünï東京";
    for (let k = 0; k <= text.length; k++) expect(codePointBoundary(text, k)).toBe(k);
  });
});

describe("salvagePartialMarkdown", () => {
  it("keeps everything and closes an open code block", () => {
    expect(salvagePartialMarkdown("Look:\n```sh\nls -la")).toBe("Look:\n```sh\nls -la\n```");
  });

  it("keeps unfinished inline syntax as literal text", () => {
    expect(salvagePartialMarkdown("Hello **wor")).toBe("Hello **wor");
    expect(salvagePartialMarkdown("see [docs](http")).toBe("see [docs](http");
  });

  it("drops only half a surrogate pair", () => {
    expect(salvagePartialMarkdown("ok \ud83d")).toBe("ok ");
  });
});
