import type Keyv from "keyv";
import type { ListingListItem } from "../../api/types.js";
import type { BackgroundDuty } from "../../bridge/background-passes.js";
import type { WorkQueue } from "../../bridge/store/work-queue.js";
import { ChatbotApiError, type ChatbotClient } from "../../client/index.js";
import type { Logger } from "../../common/log.js";
import { cardFromListing } from "../listings/card-from-listing.js";
import { ALERT_CLAIM_PREFIX, ALERT_FLUSH_CLAIM_PREFIX, ALERTS_SNAPSHOT_PREFIX } from "./alert-keys.js";
import type { FeedMetrics } from "./alert-metrics.js";
import type { AlertAction, AlertPayload } from "./alert-work.js";
import { diffListings, type ListingEvent, type ListingSnapshot } from "./listing-diff.js";
import { followListingChanges } from "./listing-feed.js";
import { PassSchedule } from "./pass-schedule.js";
import type { ConversationAlerts, SavedSearches } from "./saved-searches.js";
import { matches, priceOf } from "./search-criteria.js";

/** A chatbot whose listings are watched. */
export interface WatchedChatbot {
  botId: string;
  serialNumber: string;
  client: Pick<ChatbotClient, "listListings" | "listingChanges">;
}

/** What {@link AlertPoller} works with. */
export interface AlertPollerOptions {
  chatbots: WatchedChatbot[];
  keyv: Keyv;
  searches: SavedSearches;
  work: WorkQueue;
  /** Time between two passes when no change is announced. */
  intervalMs: number;
  /** Shortest time between the starts of two passes that changes asked for (default 1 s). */
  minGapMs?: number;
  /** How long an alert's id is claimed: an event found again within it is not queued again. */
  dedupTtlMs: number;
  log: Logger;
  now: () => number;
  /** Where the change feeds' state shows (see `followListingChanges`). */
  metrics?: FeedMetrics | undefined;
}

/** RealEstateList's page size for a poll. */
const PAGE_SIZE = 100;
/** Listings a poll reads at most per chatbot. */
const MAX_LISTINGS = 5_000;

/**
 * Finds the alerts, as a background pass (one process at a time): every interval it reads each chatbot's listings
 * through RealEstateList — the same on the hosted platform and on the self-hosted server — compares them with the
 * snapshot of the last pass (`alerts-snapshot:<bot>`), and queues each event for every conversation of that bot with
 * a saved search it matches, as work of the conversation whose id names both (so a pass redone after a crash queues
 * nothing twice); the snapshot is written after. It also queues the alerts kept for later once their time has come.
 *
 * Where the API announces changes as they happen (the self-hosted server's RealEstateChanges), it follows each
 * chatbot's feed while it runs, and a change asks for a pass soon (see {@link PassSchedule}): the feed only says
 * when to look, the diff still decides what is an alert, and the interval's poll stays the safety net for changes
 * a lost feed did not announce. Where it has none (the hosted platform), it polls only.
 */
export class AlertPoller implements BackgroundDuty {
  readonly #options: AlertPollerOptions;
  /** The bots whose API answered that it has no change feed: not asked again by this process. */
  readonly #withoutFeed = new Set<string>();
  /** The bots whose listings cannot be read for want of configuration, already said once. */
  readonly #misconfigured = new Set<string>();
  #stopping: AbortController | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: AlertPollerOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#loop) return;
    const stopping = new AbortController();
    this.#stopping = stopping;
    this.#loop = this.#run(stopping.signal);
  }

  async stop(): Promise<void> {
    this.#stopping?.abort();
    await this.#loop;
    this.#loop = undefined;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const { intervalMs, minGapMs = 1_000 } = this.#options;
    const schedule = new PassSchedule(intervalMs, minGapMs);
    const feeds = this.#followFeeds(schedule, signal);
    await schedule.next(signal);
    while (!signal.aborted) {
      await this.pass();
      await schedule.next(signal);
    }
    await feeds;
  }

  /** Follows each chatbot's change feed until `signal` aborts (the duty released): a change asks for a pass. */
  async #followFeeds(schedule: PassSchedule, signal: AbortSignal): Promise<void> {
    const { chatbots, log } = this.#options;
    await Promise.all(
      chatbots
        .filter((chatbot) => !this.#withoutFeed.has(chatbot.botId))
        .map(async (chatbot) => {
          const ended = await followListingChanges({
            ...chatbot,
            onChange: () => schedule.ask(),
            log,
            signal,
            metrics: this.#options.metrics,
          });
          if (ended === "unavailable") this.#withoutFeed.add(chatbot.botId);
        }),
    );
  }

  /** One pass: each chatbot's listings compared, their events queued, then the alerts now due. Never rejects. */
  async pass(): Promise<void> {
    const { log, keyv } = this.#options;
    let conversations: Map<string, ConversationAlerts> | undefined;
    for (const chatbot of this.#options.chatbots) {
      try {
        const key = `${ALERTS_SNAPSHOT_PREFIX}${chatbot.botId}`;
        const items = await listAll(chatbot);
        const previous = (await keyv.get<ListingSnapshot>(key)) ?? undefined;
        const { events, snapshot } = diffListings(previous, items);
        if (events.length > 0) {
          conversations ??= await this.#conversations();
          await this.#queue(chatbot, events, conversations);
        }
        // After the events are queued: a pass that fails before finds them again (and queues none twice).
        await keyv.set(key, snapshot);
        this.#misconfigured.delete(chatbot.botId);
      } catch (error) {
        this.#reportFailure(chatbot.botId, error);
      }
    }
    try {
      await this.#queueDue(conversations ?? (await this.#conversations()));
    } catch (error) {
      log.warn({ err: error }, "alerts: the alerts due could not be queued; trying next time");
    }
  }

  /**
   * Says why a chatbot's listings could not be compared. A missing setting (the session key, most often) fails
   * every pass the same way until the operator sets it, which the banner already said: said once, not every
   * interval, and again only after it worked.
   */
  #reportFailure(botId: string, error: unknown): void {
    const { log } = this.#options;
    if (!(error instanceof ChatbotApiError && error.kind === "config")) {
      log.warn({ err: error, botId }, "alerts: the listings could not be compared; trying next time");
    } else if (!this.#misconfigured.has(botId)) {
      this.#misconfigured.add(botId);
      log.warn({ err: error, botId }, "alerts: the listings cannot be read until this is configured; not said again");
    } else {
      log.debug({ botId }, "alerts: the listings still cannot be read (configuration)");
    }
  }

  /** The records of the conversations with saved searches. */
  async #conversations(): Promise<Map<string, ConversationAlerts>> {
    const { searches } = this.#options;
    const records = new Map<string, ConversationAlerts>();
    for (const conversation of await searches.conversations()) {
      const alerts = await searches.read(conversation);
      if (alerts && alerts.searches.length > 0) records.set(conversation, alerts);
    }
    return records;
  }

  /** Queues each event for each conversation of the chatbot's bot with a search it matches. */
  async #queue(
    chatbot: WatchedChatbot,
    events: ListingEvent[],
    conversations: Map<string, ConversationAlerts>,
  ): Promise<void> {
    for (const event of events) {
      // The price is part of a drop's id: a second drop of the same listing is an event of its own.
      const price = event.kind === "price-drop" ? `:${priceOf(event.item)}` : "";
      const eventId = `${chatbot.botId}:${event.mlsNumber}:${event.kind}${price}`;
      const card = cardFromListing(event.item);
      for (const [conversation, alerts] of conversations) {
        if (alerts.botId !== chatbot.botId) continue;
        if (!alerts.searches.some((search) => matches(search.criteria, event.item))) continue;
        const id = `${ALERT_CLAIM_PREFIX}${conversation}:${eventId}`;
        const alert = { id: eventId, kind: event.kind, card };
        await this.#enqueue(id, conversation, alerts, { type: "event", alert });
      }
    }
  }

  /** Queues the alerts kept for later whose time has come. */
  async #queueDue(conversations: Map<string, ConversationAlerts>): Promise<void> {
    const now = this.#options.now();
    for (const [conversation, alerts] of conversations) {
      if (!alerts.pending?.length || alerts.dueAt === undefined || alerts.dueAt > now) continue;
      // Named by the time it was due for: queued once, however many passes see it before it is handled.
      const id = `${ALERT_FLUSH_CLAIM_PREFIX}${conversation}:${alerts.dueAt}`;
      await this.#enqueue(id, conversation, alerts, { type: "flush" });
    }
  }

  async #enqueue(id: string, conversation: string, alerts: ConversationAlerts, action: AlertAction): Promise<void> {
    const payload: AlertPayload = {
      kind: "alert",
      action,
      target: alerts.target,
      channel: alerts.channel,
      botId: alerts.botId,
    };
    await this.#options.work.enqueue({ id, conversation, payload }, this.#options.dedupTtlMs);
  }
}

/** Every listing of the chatbot, page by page, up to {@link MAX_LISTINGS}. */
async function listAll(chatbot: WatchedChatbot): Promise<ListingListItem[]> {
  const items: ListingListItem[] = [];
  for (let page = 1; items.length < MAX_LISTINGS; page++) {
    const { List } = await chatbot.client.listListings({
      SerialNumber: chatbot.serialNumber,
      PageNumber: page,
      PageSize: PAGE_SIZE,
    });
    items.push(...List);
    if (List.length < PAGE_SIZE) break;
  }
  return items;
}
