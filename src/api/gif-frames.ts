/**
 * Counts the images in a GIF by walking its blocks (GIF89a spec): more than one image is an animation,
 * which ClientAsk refuses. Returns 0 for a file too broken to walk.
 */
export function gifFrameCount(bytes: Uint8Array): number {
  if (bytes.length < 13) return 0;
  let offset = 13;
  const screenFlags = bytes[10] ?? 0;
  if (screenFlags & 0x80) offset += 3 * 2 ** ((screenFlags & 0x07) + 1);
  let frames = 0;
  const skipSubBlocks = () => {
    while (offset < bytes.length) {
      const size = bytes[offset] ?? 0;
      offset += 1;
      if (size === 0) return;
      offset += size;
    }
  };
  while (offset < bytes.length) {
    const introducer = bytes[offset];
    if (introducer === 0x3b) break;
    if (introducer === 0x21) {
      offset += 2; // introducer and label
      skipSubBlocks();
    } else if (introducer === 0x2c) {
      frames++;
      const flags = bytes[offset + 9] ?? 0;
      offset += 10;
      if (flags & 0x80) offset += 3 * 2 ** ((flags & 0x07) + 1);
      offset += 1; // LZW minimum code size
      skipSubBlocks();
    } else {
      break;
    }
  }
  return frames;
}
