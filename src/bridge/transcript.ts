import type Keyv from "keyv";
import { TRANSCRIPT_PREFIX } from "./store/key-prefixes.js";

/** One line of a conversation as the bridge saw it. */
export interface TranscriptEntry {
  from: "user" | "bot";
  text: string;
  /** Epoch milliseconds. */
  at: number;
}

/** Lines kept per conversation: more than a handoff mail shows, few enough to stay a small value. */
const KEPT = 50;
/** A conversation nobody wrote in for a week is not handed over with its old lines. */
const TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The last lines of each conversation (the user's messages, with a note for their files, and the answers as
 * delivered), kept by the bridge itself so that a handoff mail can show them also with the hosted platform, whose
 * history the bridge cannot read per session.
 */
export class Transcript {
  /** Appends run one after another per conversation: a read-modify-write of one value. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(private readonly keyv: Keyv) {}

  add(conversation: string, entry: TranscriptEntry): Promise<void> {
    if (entry.text.trim() === "") return Promise.resolve();
    const previous = this.#writes.get(conversation) ?? Promise.resolve();
    const write = previous.then(async () => {
      const lines = ((await this.keyv.get(this.#key(conversation))) as TranscriptEntry[] | undefined) ?? [];
      lines.push(entry);
      await this.keyv.set(this.#key(conversation), lines.slice(-KEPT), TTL_MS);
    });
    const settled = write.catch(() => undefined);
    this.#writes.set(conversation, settled);
    void settled.then(() => {
      if (this.#writes.get(conversation) === settled) this.#writes.delete(conversation);
    });
    return write;
  }

  /** The last `count` lines, oldest first. */
  async recent(conversation: string, count: number): Promise<TranscriptEntry[]> {
    const lines = ((await this.keyv.get(this.#key(conversation))) as TranscriptEntry[] | undefined) ?? [];
    return lines.slice(-count);
  }

  #key(conversation: string): string {
    return `${TRANSCRIPT_PREFIX}${conversation}`;
  }
}
