import type { Attached, BridgeParts } from "../../bridge/bridge-parts.js";
import { ChannelError } from "../../bridge/channel.js";
import type { ReplyTarget } from "../../bridge/inbound.js";
import type { Job } from "../../bridge/job-ledger.js";
import { CARD_ACTIONS, type CardLabels } from "./card-actions.js";
import { cardSurfaceOf } from "./card-surface.js";
import type { ListingCard } from "./listing-card.js";

/** What the ledger keeps of a message's listing cards: the cards looked up once, and how many were sent. */
interface CardsRecord {
  cards: ListingCard[];
  sent: number;
}

/**
 * Sends listing cards as step `step` of `job`: `lookUp` runs once (the cards go into the ledger before the first is
 * sent), then the cards go in the channel's groups through the pacer like any final, each group recorded once sent,
 * so a resumed job sends none of them twice. A group whose image the platform refused goes again as text; any other
 * failure ends the cards quietly — the message they follow was delivered. Nothing where the channel has no cards.
 * `labels`: what the cards' link and buttons say (the chatbot's language; English when not given).
 */
export async function sendCardsOnce(
  parts: Pick<BridgeParts, "log" | "metrics">,
  attached: Attached,
  target: ReplyTarget,
  job: Pick<Job, "ledger" | "fence" | "conversation">,
  step: string,
  lookUp: () => Promise<ListingCard[]>,
  labels?: CardLabels,
): Promise<void> {
  const surface = cardSurfaceOf(attached.channel);
  if (!surface) return;
  const { log, metrics } = parts;
  const { ledger, fence, conversation } = job;
  let record = ledger.step<CardsRecord>(step);
  if (!record) {
    record = { cards: await lookUp(), sent: 0 };
    await ledger.record(step, record);
  }
  const perMessage = Math.max(1, surface.perMessage);
  const send = (cards: ListingCard[]) =>
    attached.pacer.schedule(
      target,
      "final",
      () => {
        fence.throwIfAborted();
        return surface.send(target, cards, CARD_ACTIONS, labels);
      },
      undefined,
      { operation: "send" },
    );
  while (record.sent < record.cards.length) {
    const group = record.cards.slice(record.sent, record.sent + perMessage);
    try {
      await send(group).catch((error: unknown) => {
        if (!(error instanceof ChannelError && error.kind === "media") || fence.aborted) throw error;
        log.info({ conversation, reason: error.message }, "a listing card's image was refused: sent as text");
        return send(group.map((card) => ({ ...card, image: undefined })));
      });
      metrics.messagesOut.inc({ channel: attached.channel.name });
      record.sent += group.length;
    } catch (error) {
      if (fence.aborted) throw error;
      log.warn({ err: error, conversation }, "the listing cards could not be sent");
      record.sent = record.cards.length;
    }
    await ledger.record(step, record);
  }
}
