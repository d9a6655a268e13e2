import type { Channel, SentMessage } from "../../bridge/channel.js";
import type { InboundMessage, ReplyTarget } from "../../bridge/inbound.js";
import type { CardAction } from "./card-action.js";
import { type CardLabels, cardActionId, cardActionText, readCardActionId } from "./card-actions.js";
import type { ListingCard } from "./listing-card.js";

/**
 * Listing cards shown natively after an answer (see "Listing cards" in docs/bridge.md): what a channel implements,
 * as its `cards`, to show them. Each call of {@link send} is one paced send, so it makes one platform call.
 */
export interface CardSurface {
  /** Cards one message holds: the bridge sends an answer's cards in groups of this size, one {@link send} each. */
  readonly perMessage: number;
  /**
   * Shows `cards`: each with its photo when it has an `image`, its facts, a "Details" link to its page and a button
   * per action in `actions` (in that order), whose tap comes back as an InboundMessage whose `button` is the
   * action's id ({@link cardTapOf}). A card without `image` goes as text with the same link and buttons. Throws
   * ChannelError `media` when the platform could not fetch or take an image: the bridge then sends the same cards
   * again without their images. `labels`: what the link and the buttons say, in the chatbot's language (English
   * when not given).
   */
  send(
    target: ReplyTarget,
    cards: readonly ListingCard[],
    actions: readonly CardAction[],
    labels?: CardLabels,
  ): Promise<SentMessage>;
}

/**
 * A channel that shows listing cards after an answer through the bridge (the web chat shows its own, as it follows
 * each message's text, and declares none).
 */
export interface CardChannel extends Channel {
  readonly cards: CardSurface;
}

/** The channel's card surface, where it has one. */
export function cardSurfaceOf(channel: Channel): CardSurface | undefined {
  return (channel as Partial<CardChannel>).cards;
}

/** A tap on a listing card's button: what it asks for, and of which listing. */
export interface CardTap {
  action: CardAction;
  mlsNumber: string;
}

/**
 * The card tap a message is, when its button is a card's (`card:<action>:<MLS>`). Messages queued by versions that
 * carried the tap as `cardAction` are read too, so that work waiting across an upgrade is answered the same way.
 */
export function cardTapOf(message: InboundMessage): CardTap | undefined {
  if (message.button !== undefined) return readCardActionId(message.button);
  const legacy = (message as { cardAction?: Partial<CardTap> }).cardAction;
  return typeof legacy?.action === "string" && typeof legacy.mlsNumber === "string"
    ? readCardActionId(`card:${legacy.action}:${legacy.mlsNumber}`)
    : undefined;
}

/**
 * The message a tapped button with id `id` is, when it is a listing card's (for a channel's inbound side): what the
 * tap stands for as its text, and the button's id. Undefined for any other button.
 */
export function cardTapMessage(id: string): (Pick<InboundMessage, "text"> & { button: string }) | undefined {
  const tap = readCardActionId(id);
  if (!tap) return undefined;
  const button = cardActionId(tap.action, tap.mlsNumber, Number.POSITIVE_INFINITY) as string;
  return { text: cardActionText(tap.action, tap.mlsNumber), button };
}
