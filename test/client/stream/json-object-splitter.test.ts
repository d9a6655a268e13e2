import { describe, expect, it } from "vitest";
import {
  GARBAGE_EXCERPT_LENGTH,
  JsonObjectSplitter,
  JsonStreamSyntaxError,
  skipWhitespace,
} from "../../../src/client/stream/json-object-splitter.js";

// Objects whose strings hold everything that could fool a splitter: braces, escaped quotes, backslashes
// right before a closing quote, `}{`, newlines, unicode escapes, emoji and CJK.
const objects = [
  { content: "plain" },
  { content: 'say "hi" {not an object}' },
  { content: "ends with a backslash \\" },
  { content: '\\\\ two, then a quote \\"' },
  { content: "}{ and }\n{ and data: x" },
  { content: "\u0000\u001f\u2028 ünïcödé 🏡 東京" },
  { nested: { deeper: { list: [1, { a: "}" }], empty: {} } }, text: "]}" },
  {},
  { QuestionID: 1, AnswerID: 2, Answer: "whole }{ text", TotalToken: 42 },
];
const texts = objects.map((object) => JSON.stringify(object));

function splitAll(pieces: string[]): string[] {
  const splitter = new JsonObjectSplitter();
  const out: string[] = [];
  for (const piece of pieces) splitter.feed(piece, out);
  splitter.end();
  expect(splitter.inObject).toBe(false);
  return out;
}

const framings: Record<string, string> = {
  ndjson: texts.map((text) => `${text}\n`).join(""),
  "ndjson with CRLF": texts.map((text) => `${text}\r\n`).join(""),
  concatenated: texts.join(""),
  "whitespace between": texts.map((text, i) => `${" \t\n".slice(0, i % 4)}${text}`).join(" \r\n "),
  "pretty-printed": objects.map((object) => JSON.stringify(object, null, 2)).join("\n"),
};

describe("JsonObjectSplitter", () => {
  for (const [name, wire] of Object.entries(framings)) {
    const expected = name === "pretty-printed" ? objects.map((o) => JSON.stringify(o, null, 2)) : texts;

    it(`splits ${name} fed whole`, () => {
      expect(splitAll([wire])).toEqual(expected);
    });

    it(`splits ${name} cut in two at every index`, () => {
      for (let at = 0; at <= wire.length; at++) {
        expect(splitAll([wire.slice(0, at), wire.slice(at)])).toEqual(expected);
      }
    });

    it(`splits ${name} fed one character at a time`, () => {
      expect(splitAll([...wire.split("")])).toEqual(expected);
    });
  }

  it("emits texts that JSON.parse reads back as the original objects", () => {
    expect(splitAll([framings.concatenated ?? ""]).map((text) => JSON.parse(text))).toEqual(objects);
  });

  it("keeps a long object across many pieces and resumes where it stopped", () => {
    const long = JSON.stringify({ Answer: 'a "quoted" \\ line\n'.repeat(20_000) });
    const pieces: string[] = [];
    for (let at = 0; at < long.length; at += 997) pieces.push(long.slice(at, at + 997));
    expect(splitAll(pieces)).toEqual([long]);
  });

  it("tells an escaped backslash from an escaped quote across a piece boundary", () => {
    // `\\` then the closing quote: the string ends here although a backslash precedes the quote.
    expect(splitAll(['{"a":"x\\', '\\"}{"b":"y\\', '"z"}'])).toEqual(['{"a":"x\\\\"}', '{"b":"y\\"z"}']);
  });

  it("reports an unfinished object through inObject, not as an error", () => {
    const splitter = new JsonObjectSplitter();
    const out: string[] = [];
    splitter.feed('{"content":"a"}{"content":"cut', out);
    expect(out).toEqual(['{"content":"a"}']);
    expect(splitter.inObject).toBe(true);
    expect(() => splitter.end()).not.toThrow();
  });

  it("is between objects only outside objects and before stray text", () => {
    const splitter = new JsonObjectSplitter();
    const out: string[] = [];
    expect(splitter.betweenObjects).toBe(true);
    splitter.feed('{"a":', out);
    expect(splitter.betweenObjects).toBe(false);
    splitter.feed("1} ", out);
    expect(splitter.betweenObjects).toBe(true);
    splitter.feed("oops", out);
    expect(splitter.betweenObjects).toBe(false);
    expect(splitter.inObject).toBe(false);
  });

  it("stops after the first object when asked, returning where to resume", () => {
    const splitter = new JsonObjectSplitter();
    const out: string[] = [];
    const piece = ' {"a":{"b":1}} {"c":2}';
    const next = splitter.feed(piece, out, 0, true);
    expect(out).toEqual(['{"a":{"b":1}}']);
    expect(piece.slice(next)).toBe(' {"c":2}');
    expect(splitter.feed(piece, out, next, true)).toBe(piece.length);
    expect(out).toEqual(['{"a":{"b":1}}', '{"c":2}']);
  });

  it("quotes stray text once it has 80 characters, after the objects before it", () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${"x".repeat(200)}`;
    const splitter = new JsonObjectSplitter();
    const out: string[] = [];
    let error: unknown;
    try {
      for (const char of `{"content":"ok"}\n${page}`) splitter.feed(char, out);
    } catch (e) {
      error = e;
    }
    expect(out).toEqual(['{"content":"ok"}']);
    expect(error).toBeInstanceOf(JsonStreamSyntaxError);
    expect((error as JsonStreamSyntaxError).excerpt).toBe(page.slice(0, GARBAGE_EXCERPT_LENGTH));
  });

  it("reports short stray text at the end", () => {
    const splitter = new JsonObjectSplitter();
    const out: string[] = [];
    splitter.feed("Bad Gateway", out);
    expect(() => splitter.end()).toThrow(JsonStreamSyntaxError);
    expect(() => splitter.end()).toThrow('not a JSON object: "Bad Gateway"');
  });

  it("rejects top-level values that are not objects", () => {
    expect(() => JsonObjectSplitter.split('[{"content":"a"}]')).toThrow(JsonStreamSyntaxError);
    expect(() => JsonObjectSplitter.split('{"a":1} 42')).toThrow("not a JSON object");
  });

  it("split() returns every object of a text, an unfinished one last", () => {
    expect(JsonObjectSplitter.split('{"a":1}{"b":"}"} {"c":')).toEqual(['{"a":1}', '{"b":"}"}', '{"c":']);
  });

  it("skipWhitespace skips only JSON whitespace", () => {
    expect(skipWhitespace(" \t\r\n{", 0)).toBe(4);
    expect(skipWhitespace("  ", 0)).toBe(2);
    expect(skipWhitespace("\u00a0{", 0)).toBe(0);
  });
});
