import type { WebChatEvent } from "./protocol.js";

/**
 * One visitor's conversation with the bridge: a random visitor id kept in the chosen storage, messages posted to
 * `/webchat/messages`, answers from the event stream at `/webchat/events` (EventSource reconnects by itself and
 * resumes with Last-Event-ID, so a dropped connection loses nothing).
 */
export class Conversation {
  readonly visitor: string;
  #events: EventSource | undefined;

  constructor(
    private readonly base: string,
    private readonly chatbot: string,
    storage: Storage,
  ) {
    const key = `chatbridge.${chatbot}.visitor`;
    const known = storage.getItem(key);
    this.visitor = known && /^[A-Za-z0-9_-]{8,64}$/.test(known) ? known : randomId(32);
    storage.setItem(key, this.visitor);
  }

  /** Opens the event stream; `onEvent` gets every message and typing event, `onTrouble` a lasting failure. */
  listen(onEvent: (event: WebChatEvent) => void, onTrouble: (failed: boolean) => void): void {
    const url = `${this.base}/webchat/events?visitor=${encodeURIComponent(this.visitor)}&chatbot=${encodeURIComponent(this.chatbot)}`;
    const events = new EventSource(url);
    events.onmessage = (message) => {
      onTrouble(false);
      onEvent(JSON.parse(message.data) as WebChatEvent);
    };
    events.onerror = () => onTrouble(events.readyState === EventSource.CLOSED);
    this.#events = events;
  }

  /**
   * Posts a message (with `contact`, how the team can reach the visitor, for a request for a person); resolves false
   * when the bridge did not take it (the visitor may send it again).
   */
  async send(text: string, contact?: string, messageId = newMessageId()): Promise<boolean> {
    const message = { visitorId: this.visitor, messageId, text, chatbot: this.chatbot, contact };
    const response = await fetch(`${this.base}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(message),
    }).catch(() => undefined);
    return response?.ok === true;
  }

  close(): void {
    this.#events?.close();
  }
}

/** A message's id: the bridge takes each id once (a retried post is not asked twice), and it keys the bubble. */
export function newMessageId(): string {
  return randomId(16);
}

function randomId(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  return Array.from(bytes, (byte) => alphabet[byte & 63]).join("");
}
