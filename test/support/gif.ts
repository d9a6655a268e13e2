/**
 * A minimal valid GIF89a of 1×1 pixels with `frames` images (each preceded by a graphic control extension),
 * optionally without a global colour table (then each image carries a local one).
 */
export function gif(frames: number, options: { globalColorTable?: boolean } = {}): Uint8Array {
  const global = options.globalColorTable ?? true;
  const bytes: number[] = [...Buffer.from("GIF89a"), 1, 0, 1, 0, global ? 0x80 : 0x00, 0, 0];
  if (global) bytes.push(0, 0, 0, 255, 255, 255);
  if (frames > 1) bytes.push(0x21, 0xff, 11, ...Buffer.from("NETSCAPE2.0"), 3, 1, 0, 0, 0);
  for (let i = 0; i < frames; i++) {
    bytes.push(0x21, 0xf9, 4, 0, 10, 0, 0, 0);
    bytes.push(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, global ? 0x00 : 0x80);
    if (!global) bytes.push(0, 0, 0, 255, 255, 255);
    bytes.push(2, 2, 0x44, 0x01, 0);
  }
  bytes.push(0x3b);
  return new Uint8Array(bytes);
}
