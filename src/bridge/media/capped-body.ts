import { megabytes } from "../../api/media-rules.js";
import { MediaTooLargeError } from "../channel.js";

/**
 * Reads a downloaded file's body into memory, never more than `maxBytes`: a declared Content-Length over the cap is
 * refused before reading, and a body without one (or lying about it) is cut as soon as it passes the cap, so a
 * file can cost at most the cap in memory and in transfer.
 */
export async function readCapped(response: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new MediaTooLargeError(maxBytes, `${what} is ${megabytes(declared)}, over ${megabytes(maxBytes)}`);
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw new MediaTooLargeError(maxBytes, `${what} is over ${megabytes(maxBytes)}`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
