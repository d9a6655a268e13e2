import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "../../../src/client/stream/utf8-text.js";

const bytesOf = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))));

describe("decodeUtf8", () => {
  it("decodes each call on its own: a character cut at the end is a bad one, nothing carries over", () => {
    expect(decodeUtf8(bytesOf("ab", [0xe6, 0x9d]))).toBe("ab\ufffd");
    // Were the cut bytes still pending, this continuation byte would complete them.
    expect(decodeUtf8(bytesOf([0xb1], "c"))).toBe("\ufffdc");
    expect(decodeUtf8(bytesOf("東京 🏡 é"))).toBe("東京 🏡 é");
    expect(decodeUtf8(new Uint8Array(0))).toBe("");
  });

  it("keeps a U+FEFF opening the text and reads bad bytes as the whole body's decoder does", () => {
    expect(decodeUtf8(bytesOf([0xef, 0xbb, 0xbf], "é"))).toBe("\ufeffé");
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0xf0, 0x9f, 0x8f]]) {
      const bytes = bytesOf("a", bad, "b", bad);
      expect(decodeUtf8(bytes)).toBe(new TextDecoder().decode(bytes));
    }
  });
});
