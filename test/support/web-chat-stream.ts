/** One event of the web chat's stream as a page receives it. */
export interface StreamedEvent {
  /** The SSE id (what the page sends back as Last-Event-ID). */
  id: number;
  type: string;
  /** The message id, for message events. */
  messageId?: string;
  text?: string;
  /** The HTML the page shows for a message. */
  html?: string;
  /** `visitor` for the visitor's own messages (kept for the history); the bridge's otherwise. */
  from?: "visitor";
  quickReplies?: string[];
}

/**
 * A web chat page's event stream, read as a browser's EventSource would: `GET /webchat/events?visitor=…` on `base`,
 * with `Last-Event-ID` when resuming. Keeps every event in arrival order.
 */
export async function openWebChatStream(base: string, visitor: string, lastEventId?: number) {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
  const response = await fetch(`${base}/webchat/events?visitor=${visitor}`, { headers, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
  const events: StreamedEvent[] = [];
  let ended = false;
  const pump = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const id = lines.find((line) => line.startsWith("id: "));
          const data = lines.find((line) => line.startsWith("data: "));
          if (!id || !data) continue;
          const { id: messageId, ...event } = JSON.parse(data.slice(6)) as Omit<StreamedEvent, "id"> & { id?: string };
          events.push({ ...event, id: Number(id.slice(4)), ...(messageId === undefined ? {} : { messageId }) });
        }
      }
    } catch {
      // Closed by the test.
    } finally {
      ended = true;
    }
  })();
  return {
    events,
    /** Whether the server ended the stream (or the test closed it). */
    ended: () => ended,
    /** The id of the last event received: what a reconnecting EventSource sends as Last-Event-ID. */
    lastId: () => events.at(-1)?.id,
    /** The latest state of each of the bridge's messages, in the order the messages first appeared. */
    messages: () => {
      const latest = new Map<string, StreamedEvent>();
      for (const event of events) {
        if (event.type === "message" && event.messageId && event.from !== "visitor") latest.set(event.messageId, event);
      }
      return [...latest.values()];
    },
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

/** A new visitor's identity from the bridge at `base` (POST /webchat/visitors), as the widget gets one. */
export async function newVisitor(base: string): Promise<string> {
  const response = await fetch(`${base}/webchat/visitors`, { method: "POST" });
  if (response.status !== 201) throw new Error(`POST /webchat/visitors answered ${response.status}`);
  return ((await response.json()) as { visitor: string }).visitor;
}
