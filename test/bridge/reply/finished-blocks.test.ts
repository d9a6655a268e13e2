import { describe, expect, it } from "vitest";
import { finishedBlocksEnd } from "../../../src/bridge/reply/split.js";

describe("finishedBlocksEnd", () => {
  it("ends after the last finished paragraph once enough text is ready", () => {
    const text = "First paragraph here.\n\nSecond one, complete.\n\nThird still stream";
    const end = finishedBlocksEnd(text, 10) ?? -1;
    expect(text.slice(0, end).trimEnd()).toBe("First paragraph here.\n\nSecond one, complete.");
    expect(finishedBlocksEnd(text, 100)).toBeUndefined();
  });

  it("waits for the blank line: a paragraph still being written is not finished", () => {
    expect(finishedBlocksEnd("Only one paragraph so far, no blank line", 1)).toBeUndefined();
  });

  it("never ends inside a code block or a list (emphasis and links end with their paragraph anyway)", () => {
    const fence = "Intro text.\n\n```js\nconst a = 1;\n\nconst b = 2;\n";
    expect(fence.slice(0, finishedBlocksEnd(fence, 1) ?? 0).trimEnd()).toBe("Intro text.");
    const list = "Homes:\n- one\n- two\n";
    expect(finishedBlocksEnd(list, 1)).toBeUndefined();
    const afterList = "Homes:\n- one\n- two\n\nMore";
    expect(afterList.slice(0, finishedBlocksEnd(afterList, 1) ?? 0).trimEnd()).toBe("Homes:\n- one\n- two");
  });
});
