import type { ServerResponse } from "node:http";

/** One download an emulator served: how many of the file's bytes left, and whether all of them did. */
export interface ServedDownload {
  /** The platform's name for the file (file_id, media id, Slack file id). */
  file: string;
  total: number;
  sent: number;
  complete: boolean;
}

/** How an emulator serves a file's bytes. */
export interface ServeOptions {
  /** False sends no Content-Length (a chunked body), so only the bytes themselves can tell the size. */
  declareLength?: boolean;
}

const CHUNK = 64 * 1024;

/**
 * Writes `bytes` in 64 KiB chunks, waiting for each to drain, so a client that stops reading stops the transfer,
 * and records what was sent in `record`: the tests then see how much of a file a capped download really took.
 */
export async function serveFile(
  res: ServerResponse,
  file: string,
  bytes: Uint8Array,
  headers: Record<string, string>,
  record: ServedDownload[],
  options: ServeOptions = {},
): Promise<void> {
  const served: ServedDownload = { file, total: bytes.length, sent: 0, complete: false };
  record.push(served);
  res.writeHead(200, {
    ...headers,
    ...(options.declareLength !== false && { "content-length": String(bytes.length) }),
  });
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    if (res.destroyed) return;
    const piece = bytes.subarray(offset, offset + CHUNK);
    const drained = res.write(piece);
    served.sent += piece.length;
    if (!drained) await drainedOrClosed(res);
  }
  if (!res.destroyed) {
    res.end();
    served.complete = true;
  }
}

/** Waits until the response can take more, or the client is gone; leaves no listener behind. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
