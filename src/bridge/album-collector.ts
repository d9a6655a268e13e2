import type { InboundMessage } from "./inbound.js";

interface OpenAlbum {
  album: string;
  messages: InboundMessage[];
  timer?: NodeJS.Timeout;
  /** When the album must be let go however many pieces are still expected. */
  deadline: number;
}

/** However long pieces keep coming, an album waits at most this many windows. */
const MAX_WINDOWS = 4;

/**
 * Gathers the messages of an album (Telegram sends each photo of a media group as its own update; WhatsApp each
 * picture as its own message) so that they are asked as one question: a message marked with an album waits up to
 * `windowMs` for the next piece, each piece restarting the wait (at most four windows in all). Order is kept: a
 * message of the same conversation that is not part of the album lets the album go first, then itself.
 * Everything else passes straight through.
 */
export class AlbumCollector {
  readonly #open = new Map<string, OpenAlbum>();

  constructor(
    private readonly windowMs: number,
    private readonly release: (conversation: string, message: InboundMessage) => void,
  ) {}

  /** Takes a message of `conversation`; it is released now, or with its album. */
  add(conversation: string, message: InboundMessage): void {
    const open = this.#open.get(conversation);
    if (open && open.album === message.album) {
      open.messages.push(message);
      this.#schedule(conversation, open);
      return;
    }
    if (open) this.#flush(conversation);
    if (message.album === undefined || this.windowMs === 0) {
      this.release(conversation, message);
      return;
    }
    const album: OpenAlbum = {
      album: message.album,
      messages: [message],
      deadline: Date.now() + MAX_WINDOWS * this.windowMs,
    };
    this.#open.set(conversation, album);
    this.#schedule(conversation, album);
  }

  /** Lets every album go at once (shutdown: what was acknowledged must still be answered). */
  flushAll(): void {
    for (const conversation of [...this.#open.keys()]) this.#flush(conversation);
  }

  #schedule(conversation: string, album: OpenAlbum): void {
    clearTimeout(album.timer);
    const wait = Math.max(0, Math.min(this.windowMs, album.deadline - Date.now()));
    album.timer = setTimeout(() => this.#flush(conversation), wait);
  }

  #flush(conversation: string): void {
    const album = this.#open.get(conversation);
    if (!album) return;
    clearTimeout(album.timer);
    this.#open.delete(conversation);
    this.release(conversation, merged(album.messages));
  }
}

/**
 * An album's messages as one: the first message's target and event (the answer replies to where the album started),
 * every file in order, the captions joined (usually only the first photo has one).
 */
function merged(messages: InboundMessage[]): InboundMessage {
  const [first, ...rest] = messages as [InboundMessage, ...InboundMessage[]];
  if (rest.length === 0) return first;
  return {
    ...first,
    text: messages
      .map((message) => message.text.trim())
      .filter(Boolean)
      .join("\n"),
    media: messages.flatMap((message) => message.media),
  };
}
