import type Keyv from "keyv";
import type { ChatbotClient } from "../client/index.js";
import { SESSION_PREFIX } from "./store/key-prefixes.js";

/** A conversation's chatbot session, and whether it was opened just now. */
export interface ConversationSession {
  id: number;
  isNew: boolean;
}

/**
 * Maps each conversation to its chatbot session (GetSession), kept in Keyv. A conversation idle for
 * `idleMs` starts a new session (its entry expires); every use extends it.
 */
export class SessionDirectory {
  constructor(
    private readonly keyv: Keyv,
    private readonly client: ChatbotClient,
    private readonly serialNumber: string,
    private readonly idleMs: number,
  ) {}

  /** The conversation's session, opened when there is none (or it expired). */
  async current(conversation: string, signal?: AbortSignal): Promise<ConversationSession> {
    const stored = (await this.keyv.get(this.#key(conversation))) as number | undefined;
    if (typeof stored === "number") {
      await this.#remember(conversation, stored);
      return { id: stored, isNew: false };
    }
    return { id: await this.renew(conversation, signal), isNew: true };
  }

  /** Opens a new session for the conversation (`/reset`, or the old one is unknown upstream). */
  async renew(conversation: string, signal?: AbortSignal): Promise<number> {
    const id = await this.client.createSession(this.serialNumber, { signal });
    await this.#remember(conversation, id);
    return id;
  }

  #remember(conversation: string, id: number): Promise<unknown> {
    return this.keyv.set(this.#key(conversation), id, this.idleMs > 0 ? this.idleMs : undefined);
  }

  #key(conversation: string): string {
    return `${SESSION_PREFIX}${conversation}`;
  }
}
