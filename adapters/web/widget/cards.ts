import type { CardAction, ListingCard } from "./protocol.js";

/** What the link and the buttons say: the bridge's labels in the chatbot's language, sent with the cards. */
export type CardLabels = Record<CardAction | "details", string>;

/** The English labels, for cards sent without theirs (src/features/listings/card-actions.ts, not bundled here). */
const ENGLISH: CardLabels = { details: "Details", similar: "Similar homes", viewing: "Book a viewing" };

/** Each anchor's carousel, so that a newer list replaces the one shown. */
const shown = new WeakMap<HTMLElement, HTMLElement>();

const httpUrl = (url: string | undefined): url is string => url !== undefined && /^https?:\/\//i.test(url);

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string) {
  const made = document.createElement(tag);
  made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/** "3 bd · 2.5 ba · 1,850 sq ft", leaving out what the listing does not say; a home of 0 bedrooms is a studio. */
function facts(card: ListingCard): string {
  const beds = card.beds === undefined ? undefined : card.beds === 0 ? "Studio" : `${card.beds} bd`;
  const baths = card.baths === undefined ? undefined : `${card.baths} ba`;
  return [beds, baths, card.area].filter(Boolean).join(" · ");
}

/**
 * What the visitor can do with a card besides opening its page: tap one of its actions ("Similar homes" asks the
 * chatbot, "Book a viewing" starts the bridge's viewing flow).
 */
export type CardTap = (card: ListingCard, action: CardAction) => void;

function cardItem(card: ListingCard, actions: readonly CardAction[], labels: CardLabels, onTap: CardTap): HTMLElement {
  const item = element("li", "card");
  const name = card.address || `${card.propertyType} ${card.mlsNumber}`.trim();
  if (httpUrl(card.image)) {
    const photo = element("img", "photo");
    photo.alt = `${card.propertyType || "Listing"} at ${name}`;
    photo.loading = "lazy";
    photo.decoding = "async";
    photo.referrerPolicy = "no-referrer";
    // A photo that cannot be loaded leaves the card without it rather than with a broken image.
    photo.addEventListener("error", () => {
      photo.hidden = true;
    });
    photo.src = card.image;
    item.append(photo);
  }
  const price = element("p", "price", card.price);
  if (card.status) price.append(" ", element("span", `badge ${card.status === "Sold" ? "sold" : "soon"}`, card.status));
  item.append(price, element("p", "facts", facts(card)), element("p", "address", name));
  if (httpUrl(card.url)) {
    const details = element("a", "details", labels.details);
    details.href = card.url;
    details.target = "_blank";
    details.rel = "noopener noreferrer";
    details.setAttribute("aria-label", `${labels.details}: ${name}`);
    item.append(details);
  }
  for (const action of actions) {
    const button = element("button", `details ${action}`, labels[action]);
    button.type = "button";
    // The visible label first, as speech input users say it.
    button.setAttribute("aria-label", `${labels[action]}: ${name}`);
    button.addEventListener("click", () => onTap(card, action));
    item.append(button);
  }
  return item;
}

/**
 * Shows listing cards after `anchor` (an element of the log), as a row that scrolls sideways when there are several
 * (replacing the ones shown there; an empty list removes them). Every value of a listing is set as text or as an
 * attribute, never as markup; photos and links are used only when they are http(s) addresses. Each card has a
 * button per action in `actions`, in that order.
 */
export function showCards(
  anchor: HTMLElement,
  cards: ListingCard[],
  actions: readonly CardAction[],
  labels: CardLabels | undefined,
  onTap: CardTap,
): void {
  shown.get(anchor)?.remove();
  shown.delete(anchor);
  if (cards.length === 0) return;
  const list = element("ul", "cards");
  list.setAttribute("aria-label", cards.length === 1 ? "Listing" : `${cards.length} listings`);
  list.append(...cards.map((card) => cardItem(card, actions, labels ?? ENGLISH, onTap)));
  anchor.after(list);
  shown.set(anchor, list);
}
