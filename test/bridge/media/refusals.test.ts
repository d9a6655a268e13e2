import { describe, expect, it } from "vitest";
import { ChannelError, MediaTooLargeError } from "../../../src/bridge/channel.js";
import { HeicUnreadableError } from "../../../src/bridge/media/heic-to-jpeg.js";
import {
  AudioTooLongError,
  AudioUnreadableError,
  UnsupportedMediaError,
} from "../../../src/bridge/media/media-errors.js";
import { refusalOf, refusalText } from "../../../src/bridge/media/refusals.js";
import { loadConfig } from "../../../src/config/config.js";

const { media, apologyText } = loadConfig(
  { MEDIA_TOO_LONG_TEXT: "Max {limit}, {limit}!" },
  { envFile: undefined },
).bridge;

describe("refusals", () => {
  it("tells each error on a file's way apart", () => {
    expect(refusalOf(new MediaTooLargeError(5, "x"))).toEqual({ reason: "too_large", limitBytes: 5 });
    expect(refusalOf(new AudioTooLongError(60))).toEqual({ reason: "too_long", limitSeconds: 60 });
    expect(refusalOf(new AudioUnreadableError("garbage"))).toEqual({ reason: "unsupported" });
    expect(refusalOf(new UnsupportedMediaError("a PDF"))).toEqual({ reason: "unsupported" });
    expect(refusalOf(new HeicUnreadableError("broken"))).toEqual({ reason: "unsupported" });
    expect(refusalOf(new ChannelError("transient", "down"))).toEqual({ reason: "failed" });
  });

  it("fills {limit} in the operator's texts with a size or a duration people read", () => {
    expect(refusalText({ reason: "too_large", limitBytes: 20 * 1024 * 1024 }, media, apologyText)).toBe(
      "Sorry, that file is too large for me: I can take files of up to 20 MB.",
    );
    const long = (limitSeconds: number) => refusalText({ reason: "too_long", limitSeconds }, media, apologyText);
    expect(long(600)).toBe("Max 10 minutes, 10 minutes!");
    expect(long(60)).toBe("Max 1 minute, 1 minute!");
    expect(long(90)).toBe("Max 90 seconds, 90 seconds!");
    expect(long(150)).toBe("Max 2 minutes 30 seconds, 2 minutes 30 seconds!");
    expect(long(1)).toBe("Max 1 second, 1 second!");
    expect(refusalText({ reason: "unsupported" }, media, apologyText)).toBe(media.unsupportedText);
    expect(refusalText({ reason: "failed" }, media, apologyText)).toBe(apologyText);
  });
});
