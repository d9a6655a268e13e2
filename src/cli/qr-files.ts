import { writeFile } from "node:fs/promises";
import path from "node:path";
import QRCode from "qrcode";

/**
 * Error correction Q (a quarter of the code may be lost): printed on yard signs and flyers, codes get dirty, bent
 * and photographed at an angle. The links stay short enough for a code that reads from across a street.
 */
const QR_OPTIONS = { errorCorrectionLevel: "Q", margin: 4 } as const;

/** A PNG big enough to print sharply on a flyer. */
const PNG_WIDTH = 1024;

/** The files one link's QR code was written to. */
export interface QrFiles {
  png: string;
  svg: string;
}

/** Writes `link` as a QR code to `<dir>/<name>.png` and `<dir>/<name>.svg`, replacing files of those names. */
export async function writeQrFiles(link: string, dir: string, name: string): Promise<QrFiles> {
  const png = path.join(dir, `${name}.png`);
  const svg = path.join(dir, `${name}.svg`);
  await QRCode.toFile(png, link, { ...QR_OPTIONS, type: "png", width: PNG_WIDTH });
  await writeFile(svg, await QRCode.toString(link, { ...QR_OPTIONS, type: "svg" }));
  return { png, svg };
}
