import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Longest a conversion may take (a 12 MP photo takes about 1.5 s of CPU here). */
const TIMEOUT_MS = 60_000;

/**
 * The worker's script, as CommonJS (an eval worker): it loads heic-convert (libheif compiled to JS/wasm, and
 * jpeg-js) from the path the main thread resolved, converts, and posts the JPEG back, or the error's message.
 */
const SCRIPT = `
const { parentPort, workerData } = require("node:worker_threads");
const convert = require(workerData.module);
convert({ buffer: Buffer.from(workerData.bytes), format: "JPEG", quality: 0.9 }).then(
  (jpeg) => parentPort.postMessage({ jpeg: new Uint8Array(jpeg) }),
  (error) => parentPort.postMessage({ error: String((error && error.message) || error) }),
);
`;

const MODULE = createRequire(import.meta.url).resolve("heic-convert");

/** Conversions run one at a time: each holds a few hundred MB while it decodes. */
let queue: Promise<unknown> = Promise.resolve();

/** The photo was not a HEIC/HEIF image libheif could decode. */
export class HeicUnreadableError extends Error {
  override readonly name = "HeicUnreadableError";
}

/**
 * Converts an HEIC/HEIF photo (what iPhones take) to a JPEG the chatbot API accepts. Runs in a worker thread, one
 * conversion at a time: decoding a 12 MP photo costs about 1.5 s of CPU and 200 MB, which must neither stall the
 * answers streaming on the main thread nor run several at once. The worker is ended on abort and after a minute.
 */
export function heicToJpeg(bytes: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
  const run = queue.then(() => convertInWorker(bytes, signal));
  queue = run.catch(() => undefined);
  return run;
}

function convertInWorker(bytes: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(SCRIPT, { eval: true, workerData: { module: MODULE, bytes } });
    const stop = (outcome: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = () => stop(() => reject(signal.reason));
    const timer = setTimeout(
      () => stop(() => reject(new HeicUnreadableError(`the HEIC conversion took over ${TIMEOUT_MS / 1000} s`))),
      TIMEOUT_MS,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (result: { jpeg?: Uint8Array; error?: string }) => {
      const { jpeg } = result;
      stop(() => (jpeg ? resolve(jpeg) : reject(new HeicUnreadableError(result.error ?? "no image"))));
    });
    worker.once("error", (error) => stop(() => reject(new HeicUnreadableError(error.message))));
  });
}
