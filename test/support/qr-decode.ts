import { readFileSync } from "node:fs";
import jsqr from "jsqr";
import { PNG } from "pngjs";

/**
 * jsQR is CommonJS typed as an ES module: Node hands its `module.exports` (the function, which carries itself as
 * `default` too) to a default import, where TypeScript sees the namespace.
 */
const jsQR = (jsqr as unknown as { default: typeof jsqr.default }).default;

/** Pixels of a module when an SVG code is drawn for decoding, and the quiet zone is already in its viewBox. */
const SCALE = 8;

/** The text of the QR code in a PNG file; undefined when none is found. */
export function decodeQrPng(file: string): string | undefined {
  const png = PNG.sync.read(readFileSync(file));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/**
 * The text of the QR code in an SVG file as the qrcode package writes it — a white square, then one stroked path
 * of horizontal runs (`M x y.5` / `m dx dy` moves, `h n` runs of dark modules) in a `0 0 n n` viewBox — drawn at
 * {@link SCALE} pixels a module and decoded like a PNG. Anything else in the path fails the test.
 */
export function decodeQrSvg(file: string): string | undefined {
  const svg = readFileSync(file, "utf8");
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1];
  if (!size || !path) throw new Error("not an SVG of the qrcode package");
  const dark = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path.matchAll(/([Mmh])([-\d.]+)(?: ([-\d.]+))?/g)) {
    const first = Number(a);
    if (command === "M") [x, y] = [first, Number(b)];
    else if (command === "m") [x, y] = [x + first, y + Number(b)];
    else {
      for (let column = x; column < x + first; column++) (dark[Math.floor(y)] as boolean[])[column] = true;
      x += first;
    }
  }
  const width = size * SCALE;
  const pixels = new Uint8ClampedArray(width * width * 4);
  for (let py = 0; py < width; py++) {
    for (let px = 0; px < width; px++) {
      const value = dark[Math.floor(py / SCALE)]?.[Math.floor(px / SCALE)] ? 0 : 255;
      pixels.set([value, value, value, 255], (py * width + px) * 4);
    }
  }
  return jsQR(pixels, width, width)?.data;
}
