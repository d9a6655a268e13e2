import { describe, expect, it } from "vitest";
import { gifFrameCount } from "../../src/api/gif-frames.js";
import { gif } from "../support/gif.js";

describe("gifFrameCount", () => {
  it("counts one image in a still GIF and several in an animation", () => {
    expect(gifFrameCount(gif(1))).toBe(1);
    expect(gifFrameCount(gif(2))).toBe(2);
    expect(gifFrameCount(gif(5, { globalColorTable: false })).valueOf()).toBe(5);
  });

  it("returns 0 for bytes that are not a GIF it can walk", () => {
    expect(gifFrameCount(new Uint8Array([1, 2, 3]))).toBe(0);
  });
});
