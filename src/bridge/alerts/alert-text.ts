import type { ListingCard } from "../listings/listing-card.js";
import type { PendingAlert } from "./saved-searches.js";

const HEADINGS: Record<PendingAlert["kind"], string> = {
  new: "New",
  "price-drop": "Price drop",
  "now-active": "Now on the market",
};

/** What happened, when a template names one alert in a few words. */
const ONE_ALERT: Record<PendingAlert["kind"], string> = {
  new: "A new home matches your alert",
  "price-drop": "A home on your alert dropped its price",
  "now-active": "A home on your alert is now on the market",
};

/** A listing's facts in one line: "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701". */
function facts(card: ListingCard): string {
  const beds = card.beds !== undefined ? `${card.beds} beds` : undefined;
  return [card.price, beds, card.address].filter(Boolean).join(" · ");
}

/**
 * A listing in one line: "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://…", or its MLS number where it has
 * no page — whereby the user can ask about it, and the web chat, which finds a message's cards in its text, shows its
 * card.
 */
function line(card: ListingCard): string {
  const named = card.url || (/^MLS/i.test(card.mlsNumber) ? card.mlsNumber : `MLS ${card.mlsNumber}`);
  return [facts(card), named].filter(Boolean).join(" ");
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

/**
 * The variables of the alert template, where only an approved template may go (WhatsApp outside its 24-hour window;
 * see docs/channels.md): {{1}} what happened ("A new home matches your alert", "3 homes match your alerts"), {{2}}
 * the first listing in one line (price · beds · address), {{3}} its page (a dash when it has none, as a template
 * variable may not be empty). One line each: a template is one fixed text, so the list of a normal alert message
 * cannot go, only its first listing and how many there are.
 */
export function alertTemplateParameters(alerts: readonly PendingAlert[]): [string, string, string] {
  const [first] = alerts;
  if (!first) throw new Error("an alert template names at least one alert");
  const happened = alerts.length === 1 ? ONE_ALERT[first.kind] : `${alerts.length} homes match your alerts`;
  return [happened, facts(first.card) || first.card.mlsNumber, first.card.url || "-"];
}
