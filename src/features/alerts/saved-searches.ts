import type Keyv from "keyv";
import type { OutgoingText } from "../../bridge/channel.js";
import type { ReplyTarget } from "../../bridge/inbound.js";
import type { MemberSets } from "../../bridge/store/leases.js";
import type { ListingCard } from "../listings/listing-card.js";
import type { FlowState } from "./alert-flow.js";
import { ALERTS_INDEX_KEY, ALERTS_PREFIX } from "./alert-keys.js";
import type { SearchCriteria } from "./search-criteria.js";

/** A saved search: what it asks for, and when it was saved (epoch ms). */
export interface SavedSearch {
  criteria: SearchCriteria;
  savedAt: number;
}

/** A listing event waiting to be sent to a conversation: its id (once per conversation), what happened, its card. */
export interface PendingAlert {
  id: string;
  kind: "new" | "price-drop" | "now-active";
  card: ListingCard;
}

/**
 * A conversation's alerts: where they go, its saved searches, the guided flow under way if any, and the alerts
 * waiting for their time (at most one message an hour, none in the quiet hours).
 */
export interface ConversationAlerts {
  channel: string;
  botId: string;
  target: ReplyTarget;
  searches: SavedSearch[];
  flow?: FlowState | undefined;
  /** Alerts waiting to go, in the order they came. */
  pending?: PendingAlert[] | undefined;
  /** When the last alert message went (epoch ms). */
  lastSentAt?: number | undefined;
  /** When the waiting alerts may go (epoch ms): a background pass queues them then. */
  dueAt?: number | undefined;
  /**
   * The last message that changed the record (its event id) and the reply it got: a job run again after a crash
   * between the write and its ledger record gets that reply without applying the change twice ("/alerts remove 1"
   * removing the next alert).
   */
  last?: { eventId: string; reply: OutgoingText } | undefined;
}

/**
 * The saved searches of every conversation, in the bridge store (`alerts:<conversation>`), with the set of the
 * conversations that have any (`alerts:with-searches`), which is what a poll reads. Only the conversation's holder
 * writes its record, in the conversation's turn, so reading, changing and writing it back needs no lock.
 */
export class SavedSearches {
  constructor(
    private readonly keyv: Keyv,
    private readonly sets: MemberSets,
  ) {}

  /** The conversation's record; undefined when it never had alerts. */
  async read(conversation: string): Promise<ConversationAlerts | undefined> {
    return (await this.keyv.get<ConversationAlerts>(`${ALERTS_PREFIX}${conversation}`)) ?? undefined;
  }

  /**
   * Writes the record, keeping the set of conversations with searches in step (the record first: a poll tolerates a
   * member without one). A record with nothing left is deleted, unless it keeps the last change's reply.
   */
  async write(conversation: string, alerts: ConversationAlerts): Promise<void> {
    const key = `${ALERTS_PREFIX}${conversation}`;
    if (alerts.searches.length === 0 && !alerts.flow && !alerts.last) await this.keyv.delete(key);
    else await this.keyv.set(key, alerts);
    if (alerts.searches.length > 0) await this.sets.add(ALERTS_INDEX_KEY, conversation);
    else await this.sets.remove(ALERTS_INDEX_KEY, conversation);
  }

  /** The conversations with at least one saved search. */
  conversations(): Promise<string[]> {
    return this.sets.members(ALERTS_INDEX_KEY);
  }
}
