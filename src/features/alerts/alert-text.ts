import type { RequestLanguage } from "../../real-estate/alert-request.js";
import type { ListingCard } from "../listings/listing-card.js";
import type { PendingAlert } from "./saved-searches.js";

/** An alert message's words, in the bot's language (its chatbot's AIResponseLanguage). */
interface Words {
  /** What happened to a listing, before its line. */
  headings: Record<PendingAlert["kind"], string>;
  /** What happened, when a template names one alert in a few words. */
  oneAlert: Record<PendingAlert["kind"], string>;
  beds(count: number): string;
  heading(count: number): string;
  more(count: number): string;
  footer: string;
  /** A template's first variable when it names several alerts. */
  several(count: number): string;
}

const WORDS: Record<RequestLanguage, Words> = {
  en: {
    headings: { new: "New", "price-drop": "Price drop", "now-active": "Now on the market" },
    oneAlert: {
      new: "A new home matches your alert",
      "price-drop": "A home on your alert dropped its price",
      "now-active": "A home on your alert is now on the market",
    },
    beds: (count) => `${count} beds`,
    heading: (count) => (count === 1 ? "A home for your alerts:" : `${count} homes for your alerts:`),
    more: (count) => `…and ${count} more.`,
    footer: "/alerts lists your alerts, /stop ends them.",
    several: (count) => `${count} homes match your alerts`,
  },
  es: {
    headings: { new: "Nueva", "price-drop": "Bajó de precio", "now-active": "Ya en el mercado" },
    oneAlert: {
      new: "Una casa nueva coincide con tu alerta",
      "price-drop": "Una casa de tu alerta bajó de precio",
      "now-active": "Una casa de tu alerta ya está en el mercado",
    },
    beds: (count) => `${count} habitaciones`,
    heading: (count) => (count === 1 ? "Una casa para tus alertas:" : `${count} casas para tus alertas:`),
    more: (count) => `…y ${count} más.`,
    footer: "/alerts muestra tus alertas, /stop las termina.",
    several: (count) => `${count} casas coinciden con tus alertas`,
  },
};

/** A listing's facts in one line: "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701". */
function facts(card: ListingCard, words: Words): string {
  const beds = card.beds !== undefined ? words.beds(card.beds) : undefined;
  return [card.price, beds, card.address].filter(Boolean).join(" · ");
}

/**
 * A listing in one line: "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://…", or its MLS number where it has
 * no page — whereby the user can ask about it, and the web chat, which finds a message's cards in its text, shows its
 * card.
 */
function line(card: ListingCard, words: Words): string {
  const named = card.url || (/^MLS/i.test(card.mlsNumber) ? card.mlsNumber : `MLS ${card.mlsNumber}`);
  return [facts(card, words), named].filter(Boolean).join(" ");
}

/** Listings one alert message names at most, so that it stays within every platform's length. */
export const MAX_ALERT_LINES = 10;

/**
 * The text of one alert message, in `language`: the listings it is about (the first {@link MAX_ALERT_LINES}, then how
 * many more), with what happened to each, and how to stop them.
 */
export function alertText(alerts: readonly PendingAlert[], language: RequestLanguage = "en"): string {
  const words = WORDS[language];
  const lines = alerts
    .slice(0, MAX_ALERT_LINES)
    .map((alert) => `• ${words.headings[alert.kind]}: ${line(alert.card, words)}`);
  const more = alerts.length - MAX_ALERT_LINES;
  if (more > 0) lines.push(words.more(more));
  return `${words.heading(alerts.length)}\n${lines.join("\n")}\n\n${words.footer}`;
}

/**
 * The variables of the alert template, where only an approved template may go (WhatsApp outside its 24-hour window;
 * see docs/channels.md): {{1}} what happened ("A new home matches your alert", "3 homes match your alerts"), {{2}}
 * the first listing in one line (price · beds · address), {{3}} its page (a dash when it has none, as a template
 * variable may not be empty). One line each: a template is one fixed text, so the list of a normal alert message
 * cannot go, only its first listing and how many there are.
 */
export function alertTemplateParameters(
  alerts: readonly PendingAlert[],
  language: RequestLanguage = "en",
): [string, string, string] {
  const words = WORDS[language];
  const [first] = alerts;
  if (!first) throw new Error("an alert template names at least one alert");
  const happened = alerts.length === 1 ? words.oneAlert[first.kind] : words.several(alerts.length);
  return [happened, facts(first.card, words) || first.card.mlsNumber, first.card.url || "-"];
}
