import type { ListingListItem } from "../../api/types.js";
import { type PhraseLanguage, phraseLanguage } from "../../bridge/phrase-language.js";
import type { CardAction } from "./card-action.js";

export type { CardAction } from "./card-action.js";

/**
 * The actions every card offers, in the order their buttons appear: two, so that WhatsApp's three reply buttons
 * are never exceeded.
 */
export const CARD_ACTIONS: readonly CardAction[] = ["similar", "viewing"];

/**
 * What a card's "Details" link and action buttons say, in one language; short enough for every platform (WhatsApp
 * reply buttons: 20 characters).
 */
export type CardLabels = Record<CardAction | "details", string>;

const LABELS: Record<PhraseLanguage, CardLabels> = {
  en: { details: "Details", similar: "Similar homes", viewing: "Book a viewing" },
  es: { details: "Detalles", similar: "Casas similares", viewing: "Reservar visita" },
};

/** The labels in English: a card sent without its chatbot's language (an alert's). */
export const CARD_LABELS: CardLabels = LABELS.en;

/** The labels in the chatbot's AIResponseLanguage: Spanish, or English for any other language. */
export function cardLabels(language: string | undefined): CardLabels {
  return LABELS[phraseLanguage(language)];
}

const PREFIX = "card:";

/**
 * The id a button carries back (Telegram callback_data, WhatsApp reply id, Slack value): `card:<action>:<MLS>`.
 * Undefined when it would be longer than `maxBytes` (Telegram's callback_data takes 64 bytes): that button is left
 * out rather than cut.
 */
export function cardActionId(action: CardAction, mlsNumber: string, maxBytes = 64): string | undefined {
  const id = `${PREFIX}${action}:${mlsNumber}`;
  return Buffer.byteLength(id) <= maxBytes ? id : undefined;
}

/** The action and listing of a button's id, or undefined for any other id (a suggested question, an old id). */
export function readCardActionId(id: string): { action: CardAction; mlsNumber: string } | undefined {
  if (!id.startsWith(PREFIX)) return undefined;
  const rest = id.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  const action = rest.slice(0, colon);
  const mlsNumber = rest.slice(colon + 1).trim();
  if (colon < 0 || mlsNumber === "" || !(CARD_ACTIONS as readonly string[]).includes(action)) return undefined;
  return { action: action as CardAction, mlsNumber };
}

/** What a tap's message reads until the bridge builds its question (and what it stays when the listing is gone). */
export function cardActionText(action: CardAction, mlsNumber: string): string {
  switch (action) {
    case "similar":
      return `Show me homes similar to MLS ${mlsNumber}`;
    case "viewing":
      return `Book a viewing of MLS ${mlsNumber}`;
  }
}

const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/**
 * The question "Similar homes" asks for a listing: same city and sale type, the price within ±20% and the bedrooms
 * within one, as a person would write it, so any chatbot (the embedded engine, an LLM, the hosted platform) reads it.
 * Criteria the listing leaves unset are left out.
 */
export function similarHomesQuestion(item: ListingListItem): string {
  const mls = String(item.MLSNumber).trim();
  const forRent = String(item.SaleType).toLowerCase().replace(/\s/g, "_") === "for_rent";
  const parts: string[] = [];
  const city = String(item.City ?? "").trim();
  if (city) parts.push(`in ${city}`);
  parts.push(forRent ? "for rent" : "for sale");
  const price = Number(String(item.Price ?? "").trim() || Number.NaN);
  if (Number.isFinite(price) && price > 0) {
    const symbol = String(item.CurrencySymbol ?? "").trim();
    const low = `${symbol}${whole.format(price * 0.8)}`;
    const high = `${symbol}${whole.format(price * 1.2)}`;
    parts.push(`about ${symbol}${whole.format(price)}${forRent ? " a month" : ""} (±20%: ${low} to ${high})`);
  }
  const beds = Number(String(item.Bedrooms ?? "").trim() || Number.NaN);
  if (Number.isFinite(beds) && beds >= 0) {
    const fewest = Math.max(0, Math.round(beds) - 1);
    parts.push(`${fewest} to ${Math.round(beds) + 1} bedrooms`);
  }
  return `Show me homes similar to MLS ${mls}: ${parts.join(", ")}.`;
}
