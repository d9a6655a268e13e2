import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The documentation a reader of the repository follows from the README. */
const DOCUMENTS = [
  "README.md",
  "adapters/README.md",
  ...readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The lines of a markdown file outside fenced code blocks (links and headings in code are not links). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of a file as `[target path, anchor]`; web and mail links are left out. */
function relativeLinks(file: string): { target: string; anchor: string | undefined; raw: string }[] {
  const links = [];
  for (const line of proseLines(readFileSync(file, "utf8"))) {
    for (const [, raw] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!raw || /^[a-z]+:/i.test(raw)) continue;
      const [target = "", anchor] = raw.split("#");
      links.push({ target: target === "" ? file : path.join(path.dirname(file), target), anchor, raw });
    }
  }
  return links;
}

describe("the documentation's links", () => {
  it.each(DOCUMENTS)("%s links only to files and headings that exist", (file) => {
    const broken = relativeLinks(file).filter(({ target, anchor }) => {
      if (!existsSync(target)) return true;
      return anchor !== undefined && target.endsWith(".md") && !anchorsOf(target).has(anchor);
    });
    expect(broken.map((link) => link.raw)).toEqual([]);
  });

  it("sees a broken link as broken", () => {
    expect(anchorsOf("README.md").has("troubleshooting")).toBe(true);
    expect(anchorsOf("README.md").has("no-such-heading")).toBe(false);
    expect(anchorsOf("docs/bridge.md").has("media-photos-voice-notes-audio-and-video")).toBe(true);
  });
});
