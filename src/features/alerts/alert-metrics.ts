import { Counter, Gauge, type Registry } from "prom-client";
import { registered } from "../../bridge/metrics.js";

/** The alerts' metrics, in the bridge's registry. */
export interface AlertMetrics {
  /**
   * Alert messages of saved searches: `sent`; `template` where only the channel's approved template could go (WhatsApp
   * outside its 24-hour window); `skipped` where not even that could (no template configured); `failed` when the
   * platform refused them.
   */
  alerts: Counter<"channel" | "outcome">;
  /** 1 while this process follows bot `bot`'s listing change feed, else 0. */
  listingFeedOpen: Gauge<"bot">;
  /** Listing changes the feed announced, by bot. */
  listingFeedChanges: Counter<"bot">;
  /** Times a bot's feed failed or ended and was opened again (each failure of a streak counted). */
  listingFeedFailures: Counter<"bot">;
}

/** What the listing change feed counts. */
export type FeedMetrics = Pick<AlertMetrics, "listingFeedOpen" | "listingFeedChanges" | "listingFeedFailures">;

/** The alerts' metrics of `registry`, registered on first use. */
export function alertMetrics(registry: Registry): AlertMetrics {
  return {
    alerts: registered(
      registry,
      "chatbridge_alerts_total",
      (registers) =>
        new Counter({
          name: "chatbridge_alerts_total",
          help: "Alert messages of saved searches: sent, template (outside a free-form window), skipped or failed",
          labelNames: ["channel", "outcome"],
          registers,
        }),
    ),
    listingFeedOpen: registered(
      registry,
      "chatbridge_listing_feed_open",
      (registers) =>
        new Gauge({
          name: "chatbridge_listing_feed_open",
          help: "1 while this process follows the chatbot's listing change feed (the background lease's holder, against an API with a feed)",
          labelNames: ["bot"],
          registers,
        }),
    ),
    listingFeedChanges: registered(
      registry,
      "chatbridge_listing_feed_changes_total",
      (registers) =>
        new Counter({
          name: "chatbridge_listing_feed_changes_total",
          help: "Listing changes announced by the chatbot's change feed",
          labelNames: ["bot"],
          registers,
        }),
    ),
    listingFeedFailures: registered(
      registry,
      "chatbridge_listing_feed_failures_total",
      (registers) =>
        new Counter({
          name: "chatbridge_listing_feed_failures_total",
          help: "Times the listing change feed failed or ended and was opened again",
          labelNames: ["bot"],
          registers,
        }),
    ),
  };
}
