import { describe, expect, it } from "vitest";
import { splitMarkdown, splitOnce } from "../../../src/bridge/reply/split.js";
import { fencesBalanced } from "./fake-channel.js";

const paragraph = (i: number) =>
  `Paragraph ${i} has **bold words** and a [link](https://example.com/${i}) plus \`code\`. ` +
  "Another sentence follows here! And one more?";

/** The words of a text, without the fence lines a split adds when it reopens a code block. */
function words(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^ {0,3}(`{3,}|~{3,})\w*$/.test(line))
    .join("\n")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function expectWellFormed(pieces: string[], limit: number, measure = (t: string) => t.length): void {
  for (const piece of pieces) {
    expect(measure(piece)).toBeLessThanOrEqual(limit);
    expect(fencesBalanced(piece), piece).toBe(true);
    expect(piece.trim()).not.toBe("");
    const last = piece.charCodeAt(piece.length - 1);
    expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
  }
}

describe("splitMarkdown", () => {
  it("returns text that fits as it is", () => {
    expect(splitMarkdown("Hello **there**\n", { maxLength: 4096 })).toEqual(["Hello **there**\n"]);
  });

  it("splits at paragraph ends, keeping every paragraph whole", () => {
    const text = Array.from({ length: 40 }, (_, i) => paragraph(i)).join("\n\n");
    const pieces = splitMarkdown(text, { maxLength: 1000 });
    expect(pieces.length).toBeGreaterThan(4);
    expectWellFormed(pieces, 1000);
    expect(pieces.join("\n\n")).toBe(text);
  });

  it("falls back to sentence ends, then to words", () => {
    const sentences = "This sentence is here. ".repeat(100).trim();
    const bySentence = splitMarkdown(sentences, { maxLength: 500 });
    expectWellFormed(bySentence, 500);
    for (const piece of bySentence.slice(0, -1)) expect(piece.endsWith("here.")).toBe(true);
    expect(bySentence.join(" ")).toBe(sentences);

    const plainWords = "word ".repeat(300).trim();
    const byWord = splitMarkdown(plainWords, { maxLength: 500 });
    expectWellFormed(byWord, 500);
    expect(byWord.join(" ")).toBe(plainWords);
  });

  it("cuts a word only when nothing else fits, and never inside a surrogate pair", () => {
    const giant = "😀".repeat(600);
    const pieces = splitMarkdown(giant, { maxLength: 501 });
    expectWellFormed(pieces, 501);
    expect(pieces.join("")).toBe(giant);
  });

  it("closes a code block and reopens it with its language in the next piece", () => {
    const code = Array.from({ length: 200 }, (_, i) => `const v${i} = ${i}; // line`).join("\n");
    const text = `Intro text.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nOutro.`;
    const pieces = splitMarkdown(text, { maxLength: 1000 });
    expect(pieces.length).toBeGreaterThan(4);
    expectWellFormed(pieces, 1000);
    for (const piece of pieces.slice(1, -1)) expect(piece.startsWith("```ts\n")).toBe(true);
    expect(words(pieces.join("\n"))).toEqual(words(text));
  });

  it("prefers the boundary before a code block to one inside it", () => {
    const code = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const text = `${"Intro sentence. ".repeat(40)}\n\n\`\`\`\n${code}\n\`\`\``;
    const [first, second] = splitMarkdown(text, { maxLength: 700 });
    expect(first).toBe("Intro sentence. ".repeat(40).trim());
    expect(second?.startsWith("```\nline 0")).toBe(true);
  });

  it("never breaks a link or inline code", () => {
    const link = "[a link with quite a few words in its text](https://example.com/a/very/long/path)";
    const code = "`some inline code with spaces in it`";
    const text = `${"Filler words here. ".repeat(20)}${link} and ${code} ${"More filler words. ".repeat(20)}`;
    for (let limit = 300; limit < 500; limit += 7) {
      const pieces = splitMarkdown(text, { maxLength: limit });
      expectWellFormed(pieces, limit);
      expect(
        pieces.some((piece) => piece.includes(link)),
        `limit ${limit}`,
      ).toBe(true);
      expect(
        pieces.some((piece) => piece.includes(code)),
        `limit ${limit}`,
      ).toBe(true);
    }
  });

  it("keeps emphasis whole when it can, and closes and reopens it when it cannot", () => {
    const text = `${"Plain words here. ".repeat(20)}**${"bold words here. ".repeat(5)}end**`;
    const pieces = splitMarkdown(text, { maxLength: 400 });
    expect(pieces.some((piece) => piece.includes(`**${"bold words here. ".repeat(5)}end**`))).toBe(true);

    const long = `**${"word ".repeat(500)}end**`;
    const reopened = splitMarkdown(long, { maxLength: 1000 });
    expectWellFormed(reopened, 1000);
    for (const piece of reopened) expect(piece).toMatch(/^\*\*word.*\*\*$/s);
    expect(words(reopened.join(" "))).toEqual(words(long));
  });

  it("measures with the channel's measure and keeps the margin free", () => {
    // A channel whose rendering doubles every character.
    const measure = (t: string) => t.length * 2;
    const text = Array.from({ length: 30 }, (_, i) => paragraph(i)).join("\n\n");
    const pieces = splitMarkdown(text, { maxLength: 1000, measure, margin: 100 });
    expectWellFormed(pieces, 900, measure);
    expect(pieces.join("\n\n")).toBe(text);
  });

  it("splits a realistic mixed answer into well-formed pieces at many limits", () => {
    const parts: string[] = [];
    for (let i = 0; i < 30; i++) {
      parts.push(paragraph(i));
      if (i % 7 === 3)
        parts.push(`\`\`\`python\n${Array.from({ length: 15 }, (_, k) => `print(${i}, ${k})`).join("\n")}\n\`\`\``);
      if (i % 5 === 1) parts.push(`- item **${i}**\n- item _two_\n- item ~~three~~`);
    }
    const text = parts.join("\n\n");
    for (const limit of [200, 333, 512, 1000, 4096]) {
      const pieces = splitMarkdown(text, { maxLength: limit });
      expectWellFormed(pieces, limit);
      expect(words(pieces.join("\n"))).toEqual(words(text));
    }
  });

  it("refuses a limit too small for any piece", () => {
    expect(() => splitMarkdown("x".repeat(100), { maxLength: 40, margin: 20 })).toThrow(RangeError);
  });
});

describe("splitOnce", () => {
  it("says where the rest starts and what reopens it", () => {
    const text = `\`\`\`js\n${"a();\n".repeat(100)}\`\`\``;
    const cut = splitOnce(text, { maxLength: 200 });
    expect(cut?.head.endsWith("\n```")).toBe(true);
    expect(cut?.reopen).toBe("```js\n");
    expect(text.slice(cut?.restStart ?? 0).startsWith("a();")).toBe(true);
  });

  it("does not split text that fits", () => {
    expect(splitOnce("short", { maxLength: 100 })).toBeUndefined();
  });

  it("never returns only the reopened markup as a piece", () => {
    const text = `\`\`\`ts\n${"x".repeat(300)}`;
    const cut = splitOnce(text, { maxLength: 100, minCut: 6 });
    expect(cut?.restStart).toBeGreaterThan(6);
  });
});
