import { setTimeout as sleep } from "node:timers/promises";
import { ChatbotApiError, type ChatbotClient } from "../../client/index.js";
import { type RetryPolicy, retryDelay } from "../../client/retry.js";
import type { Logger } from "../../common/log.js";
import type { FeedMetrics } from "./alert-metrics.js";

/** How soon a lost feed is opened again: 0.5 s, doubling up to 30 s, with jitter; never given up. */
const RECONNECT: RetryPolicy = { attempts: Number.POSITIVE_INFINITY, baseDelayMs: 500, maxDelayMs: 30_000 };

/** What {@link followListingChanges} follows, and whom it tells. */
export interface ListingFeedOptions {
  botId: string;
  serialNumber: string;
  client: Pick<ChatbotClient, "listingChanges">;
  /** A listing changed, or the feed opened (changes before that were not announced). */
  onChange: () => void;
  log: Logger;
  /** Ends the following. */
  signal: AbortSignal;
  /** How soon a lost feed is opened again (default 0.5 s doubling to 30 s). */
  reconnect?: RetryPolicy;
  /** Where the feed's state shows: open or not, the changes it announced, its failures. */
  metrics?: FeedMetrics | undefined;
}

/**
 * Follows a chatbot's listing change feed (the self-hosted server's RealEstateChanges) until `signal` aborts:
 * each change calls `onChange`, and so does each opening of the feed, since what changed before it listened was not
 * announced. A feed that fails or ends is opened again with backoff. Resolves `"unavailable"` at once where the API
 * has no feed (see {@link hasNoFeed}: the hosted platform), `"stopped"` when `signal` aborts. Never rejects.
 */
export async function followListingChanges(options: ListingFeedOptions): Promise<"unavailable" | "stopped"> {
  const { botId, serialNumber, client, onChange, log, signal, metrics } = options;
  const labels = { bot: botId };
  let opened = false;
  let failures = 0;
  /** Whether this streak of failures was logged: once each. */
  let warned = false;
  const failed = (error: unknown) => {
    metrics?.listingFeedFailures.inc(labels);
    if (warned) return;
    warned = true;
    log.warn({ err: error, botId }, "alerts: the listing change feed failed; opening it again, polling meanwhile");
  };
  while (!signal.aborted) {
    let changes: AsyncIterable<unknown> | undefined;
    try {
      changes = await client.listingChanges(serialNumber, { signal });
    } catch (error) {
      if (signal.aborted) break;
      if (hasNoFeed(error)) {
        log.info(
          { botId, reason: error.detail },
          "alerts: the chatbot API has no listing change feed; its listings are polled only",
        );
        return "unavailable";
      }
      failed(error);
    }
    if (changes) {
      if (opened) log.info({ botId }, "alerts: the listing change feed is back");
      else log.info({ botId }, "alerts: following the listing change feed; listings are compared as they change");
      // What changed before the feed listened (while it was lost, or since a pass that ran as it opened) was not
      // announced: one more look covers it.
      onChange();
      opened = true;
      failures = 0;
      warned = false;
      metrics?.listingFeedOpen.set(labels, 1);
      try {
        for await (const _change of changes) {
          metrics?.listingFeedChanges.inc(labels);
          onChange();
        }
        // The server ended it (a restart): opened again, counted with the failures (not logged: it says so itself).
        if (!signal.aborted) metrics?.listingFeedFailures.inc(labels);
      } catch (error) {
        if (!signal.aborted) failed(error);
      } finally {
        metrics?.listingFeedOpen.set(labels, 0);
      }
      if (signal.aborted) break;
    }
    await sleep(retryDelay(options.reconnect ?? RECONNECT, failures++), undefined, { signal }).catch(() => undefined);
  }
  return "stopped";
}

/**
 * Whether an opening's failure says the API has no feed, rather than that it failed this time: a 404 or 405 (the
 * hosted platform), an answer that is not an event stream (a page served for any path), or no session key configured.
 */
function hasNoFeed(error: unknown): error is ChatbotApiError {
  if (!(error instanceof ChatbotApiError)) return false;
  return error.status === 404 || error.status === 405 || error.kind === "malformed" || error.kind === "config";
}
