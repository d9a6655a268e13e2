import {
  type CardAction,
  type CardLabels,
  ChannelError,
  cardActionId,
  cardFacts,
  cardKind,
  cutText,
  type ListingCard,
} from "../../src/plugin/plugin-api.js";
import { BUTTON_TEXT_LIMIT, SECTION_TEXT_LIMIT, truncate } from "./block-kit.js";
import { escapeEntities } from "./format-inline.js";

/** The action id of a listing card's Details link (its other buttons': `chatbridge_card_<action>`). */
const DETAILS_ACTION = "chatbridge_card_details";
/** Block Kit: button values up to 2,000 characters, URLs 3,000; image alt text 2,000. */
const BUTTON_VALUE_LIMIT = 2_000;
const URL_LIMIT = 3_000;
const ALT_TEXT_LIMIT = 2_000;

/**
 * A listing card as a Slack message: a section with the card in mrkdwn and its photo as the image accessory, then an
 * actions block with "Details" (a link button to the listing's page) and a button per action, whose tap comes back
 * as `block_actions` on the actions endpoint. With blocks, `text` is what notifications show.
 */
export function cardMessage(
  card: ListingCard,
  actions: readonly CardAction[],
  labels: CardLabels,
): { text: string; blocks: { type: string }[] } {
  return { text: escapeEntities(`${cardFacts(card)} — ${card.address}`), blocks: cardBlocks(card, actions, labels) };
}

/**
 * What a refused card post means: Slack refuses the blocks (`invalid_blocks`, a `format` error) when it cannot
 * download the accessory's image ("downloading image failed"), so for a card with a photo that is a `media` error,
 * which the bridge answers by sending the card again without it. Any other error is the error itself.
 */
export function cardPostError(card: ListingCard, error: unknown): unknown {
  if (card.image && error instanceof ChannelError && error.kind === "format") {
    return new ChannelError("media", error.message, undefined, { cause: error });
  }
  return error;
}

/** A card as blocks: the section with its photo as accessory, then its buttons. */
function cardBlocks(card: ListingCard, actions: readonly CardAction[], labels: CardLabels): { type: string }[] {
  const section = { type: "section", text: { type: "mrkdwn", text: cardText(card) }, ...photo(card) };
  const buttons = cardButtons(card, actions, labels);
  const actionsBlock = { type: "actions", elements: buttons };
  return buttons.length === 0 ? [section] : [section, actionsBlock];
}

/** The card in mrkdwn: the facts in bold, the address, the kind of listing and its MLS number. */
function cardText(card: ListingCard): string {
  const lines = [`*${escapeEntities(cardFacts(card))}*`, escapeEntities(card.address)];
  const kind = [cardKind(card), card.mlsNumber ? `MLS ${card.mlsNumber}` : ""].filter(Boolean).join(" · ");
  if (kind) lines.push(escapeEntities(kind));
  return cutText(lines.filter(Boolean).join("\n"), SECTION_TEXT_LIMIT);
}

/** The photo as the section's accessory; a URL longer than Block Kit takes goes without it rather than refused. */
function photo(card: ListingCard) {
  return (
    card.image &&
    card.image.length <= URL_LIMIT && {
      accessory: {
        type: "image",
        image_url: card.image,
        alt_text: cutText(card.address || "The listing's photo", ALT_TEXT_LIMIT),
      },
    }
  );
}

/**
 * "Details" (a link, when the listing has a web page Block Kit can hold) and one button per action. An action whose
 * value would pass Block Kit's limit (a very long MLS number) is left out.
 */
function cardButtons(card: ListingCard, actions: readonly CardAction[], labels: CardLabels): object[] {
  const buttons: object[] = [];
  if (/^https?:\/\//i.test(card.url) && card.url.length <= URL_LIMIT) {
    buttons.push({
      type: "button",
      action_id: DETAILS_ACTION,
      text: { type: "plain_text", text: labels.details },
      url: card.url,
    });
  }
  for (const action of actions) {
    const value = cardActionId(action, card.mlsNumber, BUTTON_VALUE_LIMIT);
    if (!value) continue;
    buttons.push({
      type: "button",
      action_id: `chatbridge_card_${action}`,
      text: { type: "plain_text", text: truncate(labels[action], BUTTON_TEXT_LIMIT) },
      value,
    });
  }
  return buttons;
}
