import type { WebChatEvent } from "./protocol.js";

/** A visitor token as the bridge issues it (adapters/web/visitor-identity.ts). */
const TOKEN = /^[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{43}$/;

/**
 * One visitor's conversation with the bridge: the visitor's identity, issued by the bridge (`POST /webchat/visitors`)
 * and kept in the chosen storage; messages posted to `/webchat/messages`; answers from the event stream at
 * `/webchat/events` (EventSource reconnects by itself and resumes with Last-Event-ID, so a dropped connection loses
 * nothing). An identity the bridge no longer accepts (its key changed) is replaced once by a new one.
 */
export class Conversation {
  readonly #key: string;
  #visitor: Promise<string> | undefined;
  #events: EventSource | undefined;

  constructor(
    private readonly base: string,
    private readonly chatbot: string,
    private readonly storage: Storage,
  ) {
    this.#key = `chatbridge.${chatbot}.visitor`;
  }

  /** Opens the event stream; `onEvent` gets every message and typing event, `onTrouble` a lasting failure. */
  async listen(onEvent: (event: WebChatEvent) => void, onTrouble: (failed: boolean) => void): Promise<void> {
    let renewed = false;
    const open = async (renew: boolean) => {
      const visitor = await this.#identity(renew);
      const url = `${this.base}/webchat/events?visitor=${encodeURIComponent(visitor)}&chatbot=${encodeURIComponent(this.chatbot)}`;
      const events = new EventSource(url);
      events.onmessage = (message) => {
        onTrouble(false);
        onEvent(JSON.parse(message.data) as WebChatEvent);
      };
      events.onerror = () => {
        if (events.readyState !== EventSource.CLOSED) return onTrouble(false);
        // Refused rather than dropped (EventSource gives up on an error status): a new identity, once.
        if (renewed) return onTrouble(true);
        renewed = true;
        void open(true);
      };
      this.#events = events;
    };
    await open(false).catch(() => onTrouble(true));
  }

  /**
   * Posts a message (with `contact`, how the team can reach the visitor, for a request for a person); resolves
   * whether the bridge took it (if not, the visitor may send it again), and when the bridge refused it as one too
   * many, how many seconds until the visitor can write again.
   */
  async send(text: string, contact?: string, messageId = newMessageId()): Promise<Sent> {
    const post = async (renew: boolean) => {
      const message = { visitorId: await this.#identity(renew), messageId, text, chatbot: this.chatbot, contact };
      return fetch(`${this.base}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
    };
    let response = await post(false).catch(() => undefined);
    if (response?.status === 403) response = await post(true).catch(() => undefined);
    if (response?.status !== 429) return { taken: response?.ok === true };
    // From the body: a page of another origin cannot read the Retry-After header.
    const refusal = (await response.json().catch(() => ({}))) as { retryAfterSeconds?: unknown };
    const seconds = refusal.retryAfterSeconds;
    return { taken: false, retryAfterSeconds: typeof seconds === "number" && seconds > 0 ? seconds : undefined };
  }

  close(): void {
    this.#events?.close();
  }

  /** The visitor's token: the one kept, or a new one from the bridge (also when `renew`). */
  #identity(renew: boolean): Promise<string> {
    if (this.#visitor && !renew) return this.#visitor;
    const kept = this.storage.getItem(this.#key);
    if (!renew && kept && TOKEN.test(kept)) {
      this.#visitor = Promise.resolve(kept);
      return this.#visitor;
    }
    this.#visitor = fetch(`${this.base}/webchat/visitors?chatbot=${encodeURIComponent(this.chatbot)}`, {
      method: "POST",
    })
      .then((response) =>
        response.ok ? (response.json() as Promise<{ visitor: string }>) : Promise.reject(response.status),
      )
      .then(({ visitor }) => {
        this.storage.setItem(this.#key, visitor);
        return visitor;
      });
    return this.#visitor;
  }
}

/** What became of a post: taken or not, and when it was one too many, the seconds until the visitor can write again. */
export interface Sent {
  taken: boolean;
  retryAfterSeconds?: number | undefined;
}

/** A message's id: the bridge takes each id once (a retried post is not asked twice), and it keys the bubble. */
export function newMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  return Array.from(bytes, (byte) => alphabet[byte & 63]).join("");
}
