import { createParser } from "eventsource-parser";
import { type Dispatcher, fetch } from "undici";
import type { WebChatEvent } from "../../adapters/web/widget/protocol.js";

/** A web chat visitor's open event stream, as a benchmark holds it: each event is handed over when it is parsed. */
export interface VisitorStream {
  /** Ends the stream from this side and waits until reading stopped. */
  close(): Promise<void>;
  /** Whether the stream ended before {@link close} (the bridge closed it, or the connection broke). */
  endedEarly(): boolean;
}

/**
 * Opens `GET /webchat/events?visitor=…` on `base` through `dispatcher` (whose connection limit must admit every
 * stream a benchmark holds at once) and reads it with eventsource-parser, as a page's EventSource would; `onEvent`
 * gets each event's data. Rejects when the bridge does not answer 200.
 */
export async function openVisitorStream(
  base: string,
  visitor: string,
  dispatcher: Dispatcher,
  onEvent: (event: WebChatEvent) => void,
): Promise<VisitorStream> {
  const controller = new AbortController();
  const response = await fetch(`${base}/webchat/events?visitor=${encodeURIComponent(visitor)}`, {
    headers: { accept: "text/event-stream" },
    signal: controller.signal,
    dispatcher,
  });
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    throw new Error(`the event stream answered ${response.status}`);
  }
  const parser = createParser({ onEvent: (message) => onEvent(JSON.parse(message.data) as WebChatEvent) });
  let closing = false;
  let ended = false;
  const body = response.body;
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // Aborted by close(), or the connection broke: endedEarly() tells which.
    } finally {
      ended = true;
    }
  })();
  return {
    close: async () => {
      closing = true;
      controller.abort();
      await reading;
    },
    endedEarly: () => ended && !closing,
  };
}
