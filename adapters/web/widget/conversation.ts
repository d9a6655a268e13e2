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
   * Posts a message (with `contact`, how the team can reach the visitor, for a request for a person, `files`, ids
   * of the visitor's uploads, and `cardAction`, the id of a listing card's button the visitor tapped); resolves
   * whether the bridge took it (if not, the visitor may send it again), and when the bridge refused it as one too
   * many, how many seconds until the visitor can write again.
   */
  async send(
    text: string,
    contact?: string,
    messageId = newMessageId(),
    files?: string[],
    cardAction?: string,
  ): Promise<Sent> {
    const post = async (renew: boolean) => {
      const visitorId = await this.#identity(renew);
      const message = { visitorId, messageId, text, chatbot: this.chatbot, contact, files, cardAction };
      return fetch(`${this.base}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
    };
    let response = await post(false).catch(() => undefined);
    if (await identityRefused(response)) response = await post(true).catch(() => undefined);
    if (response?.status !== 429) return { taken: response?.ok === true };
    // From the body: a page of another origin cannot read the Retry-After header.
    const refusal = (await response.json().catch(() => ({}))) as { retryAfterSeconds?: unknown };
    const seconds = refusal.retryAfterSeconds;
    return { taken: false, retryAfterSeconds: typeof seconds === "number" && seconds > 0 ? seconds : undefined };
  }

  /** Tells the bridge the visitor accepted the chatbot's privacy policy; resolves false when it was not recorded. */
  async consent(): Promise<boolean> {
    const post = async (renew: boolean) =>
      fetch(`${this.base}/webchat/consent`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: await this.#identity(renew), chatbot: this.chatbot }),
      });
    let response = await post(false).catch(() => undefined);
    if (await identityRefused(response)) response = await post(true).catch(() => undefined);
    return response?.ok === true;
  }

  /**
   * Uploads a photo or a recording for a message to send; resolves to its file id, or to the bridge's words when it
   * refused it (too large, not taken by this chatbot).
   */
  async upload(file: Blob): Promise<{ file: string } | { error: string }> {
    const post = async (renew: boolean) => {
      const visitor = encodeURIComponent(await this.#identity(renew));
      const url = `${this.base}/webchat/uploads?visitor=${visitor}&chatbot=${encodeURIComponent(this.chatbot)}`;
      return fetch(url, { method: "POST", headers: { "content-type": file.type }, body: file });
    };
    let response = await post(false).catch(() => undefined);
    if (await identityRefused(response)) response = await post(true).catch(() => undefined);
    if (!response) return { error: "The file could not be sent. Please try again." };
    const body = (await response.json().catch(() => ({}))) as { file?: string; error?: string };
    if (response.ok && body.file) return { file: body.file };
    if (response.status === 413) return { error: "The file is too large to send." };
    return { error: body.error ? `The file was not sent: ${body.error}.` : "The file could not be sent." };
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

/**
 * Whether the bridge refused the visitor's identity (a token it no longer accepts: its key changed), the one 403
 * worth a new identity; the others (another site's page, the privacy policy not accepted, photos not taken) are not.
 */
async function identityRefused(response: Response | undefined): Promise<boolean> {
  if (response?.status !== 403) return false;
  const refusal = (await response
    .clone()
    .json()
    .catch(() => ({}))) as { error?: string };
  return refusal.error?.includes("visitor token") === true;
}

/** A message's id: the bridge takes each id once (a retried post is not asked twice), and it keys the bubble. */
export function newMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
  return Array.from(bytes, (byte) => alphabet[byte & 63]).join("");
}
