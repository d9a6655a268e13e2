import type { ListingCard } from "./listing-card.js";

const count = (value: number, one: string, many: string) => `${value} ${value === 1 ? one : many}`;

/**
 * A card's facts on one line, as every channel writes them under its photo: "$450,000 · 3 beds · 2 baths ·
 * 1,850 sq ft", with what the listing leaves unset left out.
 */
export function cardFacts(card: ListingCard): string {
  const facts = [card.price];
  if (card.beds !== undefined) facts.push(count(card.beds, "bed", "beds"));
  if (card.baths !== undefined) facts.push(count(card.baths, "bath", "baths"));
  if (card.area) facts.push(card.area);
  return facts.join(" · ");
}

/** What kind of listing it is and its badge: "House · for rent · Coming soon"; empty when there is nothing to say. */
export function cardKind(card: ListingCard): string {
  const kind = [card.propertyType, card.saleType === "for_rent" ? "for rent" : "", card.status ?? ""];
  return kind.filter(Boolean).join(" · ");
}

/** `text` cut to at most `max` characters (code points), ending with "…" when cut. */
export function cutText(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, Math.max(0, max - 1)).join("")}…`;
}
