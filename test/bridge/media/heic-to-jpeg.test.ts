import { describe, expect, it } from "vitest";
import { HeicUnreadableError, heicToJpeg } from "../../../src/bridge/media/heic-to-jpeg.js";
import { mediaFixture } from "../../support/media-fixtures.js";

/** Width and height from a JPEG's start-of-frame segment, read by walking the segments. */
function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
  for (let offset = 2; offset + 9 < bytes.length; ) {
    const marker = bytes[offset + 1] ?? 0;
    const length = ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0);
    if (marker >= 0xc0 && marker <= 0xc2) {
      const at = (i: number) => bytes[offset + i] ?? 0;
      return { height: (at(5) << 8) | at(6), width: (at(7) << 8) | at(8) };
    }
    offset += 2 + length;
  }
  throw new Error("no start-of-frame segment");
}

describe("heicToJpeg", () => {
  it("turns an iPhone-style HEIC photo into a JPEG of the same size", async () => {
    const jpeg = await heicToJpeg(mediaFixture("photo.heic"), AbortSignal.timeout(20_000));
    expect(jpegSize(jpeg)).toEqual({ width: 64, height: 48 });
  });

  it("converts one photo at a time, each to its own result", async () => {
    const heic = mediaFixture("photo.heic");
    const results = await Promise.all([1, 2, 3].map(() => heicToJpeg(heic, AbortSignal.timeout(20_000))));
    expect(results.map(jpegSize)).toEqual(Array(3).fill({ width: 64, height: 48 }));
  });

  it("refuses bytes that are no HEIC image, and stops when aborted", async () => {
    await expect(heicToJpeg(new Uint8Array([1, 2, 3]), AbortSignal.timeout(20_000))).rejects.toBeInstanceOf(
      HeicUnreadableError,
    );
    const aborted = AbortSignal.abort(new Error("stopped"));
    await expect(heicToJpeg(mediaFixture("photo.heic"), aborted)).rejects.toThrow("stopped");
  });
});
