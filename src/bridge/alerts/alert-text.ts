import type { ListingCard } from "../listings/listing-card.js";
import type { PendingAlert } from "./saved-searches.js";

const HEADINGS: Record<PendingAlert["kind"], string> = {
  new: "New",
  "price-drop": "Price drop",
  "now-active": "Now on the market",
};

/**
 * A listing in one line: "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://…", or its MLS number where it has
 * no page — whereby the user can ask about it, and the web chat, which finds a message's cards in its text, shows its
 * card.
 */
function line(card: ListingCard): string {
  const beds = card.beds !== undefined ? `${card.beds} beds` : undefined;
  const named = card.url || (/^MLS/i.test(card.mlsNumber) ? card.mlsNumber : `MLS ${card.mlsNumber}`);
  return [[card.price, beds, card.address].filter(Boolean).join(" · "), named].join(" ");
}

/** Listings one alert message names at most, so that it stays within every platform's length. */
export const MAX_ALERT_LINES = 10;

/**
 * The text of one alert message: the listings it is about (the first {@link MAX_ALERT_LINES}, then how many more),
 * with what happened to each, and how to stop them.
 */
export function alertText(alerts: readonly PendingAlert[]): string {
  const lines = alerts.slice(0, MAX_ALERT_LINES).map((alert) => `• ${HEADINGS[alert.kind]}: ${line(alert.card)}`);
  const more = alerts.length - MAX_ALERT_LINES;
  if (more > 0) lines.push(`…and ${more} more.`);
  const heading = alerts.length === 1 ? "A home for your alerts:" : `${alerts.length} homes for your alerts:`;
  return `${heading}\n${lines.join("\n")}\n\n/alerts lists your alerts, /stop ends them.`;
}
