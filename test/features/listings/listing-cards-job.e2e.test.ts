import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/bridge.js";
import { ChannelError } from "../../../src/bridge/channel.js";
import type { InboundMessage, ReplyTarget } from "../../../src/bridge/inbound.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { ANSWER_STEPS } from "../../../src/features/index.js";
import type { CardAction, CardLabels } from "../../../src/features/listings/card-actions.js";
import type { CardSurface } from "../../../src/features/listings/card-surface.js";
import type { ListingCard } from "../../../src/features/listings/listing-card.js";
import { FakeChannel } from "../../bridge/reply/fake-channel.js";
import { holds } from "../../support/waiting.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../../upstream/fake-chatbot-api.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const defaults = loadConfig({}, { envFile: undefined }).bridge;
const fast = { perSecond: 1000, burst: 1000 };
const LISTINGS = ["TX-1", "TX-2", "TX-3"].map((mls) => listingItem(mls));

/** A channel whose card sends are recorded, and held or refused on demand. */
class CardChannel extends FakeChannel {
  readonly cardSends: {
    mls: string[];
    images: (string | undefined)[];
    actions: readonly CardAction[];
    labels: CardLabels | undefined;
  }[] = [];
  /** Called for each card send; may throw or wait. */
  onCards: (cards: readonly ListingCard[]) => Promise<void> = async () => {};
  readonly cards: CardSurface = {
    perMessage: 1,
    send: async (_target: ReplyTarget, cards, actions, labels) => {
      this.cardSends.push({
        mls: cards.map((card) => card.mlsNumber),
        images: cards.map((card) => card.image),
        actions,
        labels,
      });
      await this.onCards(cards);
      return { id: `card-${this.cardSends.length}` };
    },
  };
  constructor() {
    super({
      enforce: false,
      limits: { perChat: fast, perGroup: fast, perBot: fast, minUpdateIntervalMs: { private: 10, group: 10 } },
    });
  }
}

let api: FakeChatbotApi;
let store: BridgeStore;
let listingCalls = 0;
const bridges: Bridge[] = [];

function start(channel: CardChannel, listingCardsMax = 3): Bridge {
  const client = new ChatbotClient({ baseUrl: api.url, apiKey: "sk", sessionKey: "session", timeoutMs: 2000 });
  const bridge = new Bridge({
    steps: ANSWER_STEPS,
    store,
    config: { ...defaults, answerTimeoutMs: 1500, listingCardsMax, work: { concurrency: 10, leaseMs: 1_000 } },
    chatbots: [{ botId: "bot", client, serialNumber: "bot-1" }],
    log: createLogger("silent"),
    metrics: createBridgeMetrics(),
  });
  bridge.attach(channel);
  bridge.startWorking();
  bridges.push(bridge);
  return bridge;
}

let eventSeq = 0;
function inbound(text: string, chatId = "c1", fields: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: "fake",
    botId: "bot",
    eventId: String(++eventSeq),
    target: { chatId, isGroup: false },
    user: { id: chatId },
    text,
    media: [],
    receivedAt: new Date(),
    ...fields,
  };
}

/** A tap on a card's "Book a viewing" of listing `mls`. */
const viewingTap = (mls: string, chatId = "c1") =>
  inbound(`Book a viewing of MLS ${mls}`, chatId, { button: `card:viewing:${mls}` });

const GREETING = "Hi! How can I help you today?";

beforeAll(async () => {
  api = await FakeChatbotApi.start();
});
afterAll(() => api.close());
beforeEach(async () => {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  listingCalls = 0;
  api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 101 }));
  api.route("POST", "/chat/Chatbot/Get", (_req, res) => sendEnvelope(res, { serialNumber: "bot-1" }));
  api.route("POST", "/chat/Chatbot/RealEstateList", (req, res) => {
    listingCalls++;
    const { MLSNumber } = req.body as { MLSNumber?: string };
    const list = LISTINGS.filter((item) => item.MLSNumber === MLSNumber);
    sendEnvelope(res, { List: list, VirtualCount: list.length });
  });
  api.route("POST", "/chat/Chat/ClientAsk", async (_req, res) => {
    await writeSlowly(res, [framings.sse(answerObjects(["See MLS# TX-1, ", "MLS# TX-2 and MLS# TX-3."]))], {
      pauseMs: 5,
    });
  });
});
afterEach(async () => {
  for (const bridge of bridges.splice(0)) await bridge.stop(0);
  await store.close();
});

describe("listing cards as a step of the answer job", () => {
  it("sends the cards after the answer's text, through the channel's card surface", async () => {
    const channel = new CardChannel();
    start(channel);
    await bridges[0]?.accept(inbound("homes?"));
    await holds(() => channel.cardSends.length === 3, 5_000);
    expect(channel.messagesIn("c1").map((message) => message.text)).toEqual([
      "Hi! How can I help you today?\n\nSee MLS# TX-1, MLS# TX-2 and MLS# TX-3.",
    ]);
    expect(channel.cardSends.map((send) => send.mls)).toEqual([["TX-1"], ["TX-2"], ["TX-3"]]);
    expect(channel.cardSends[0]?.actions).toEqual(["similar", "viewing"]);
    expect(channel.cardSends[0]?.labels).toEqual({
      details: "Details",
      similar: "Similar homes",
      viewing: "Book a viewing",
    });
  });

  it("sends a card again without its image when the platform refused the image", async () => {
    const channel = new CardChannel();
    channel.onCards = async (cards) => {
      if (cards[0]?.mlsNumber === "TX-2" && cards[0].image) throw new ChannelError("media", "cannot fetch the photo");
    };
    start(channel);
    await bridges[0]?.accept(inbound("homes?"));
    await holds(() => channel.cardSends.length === 4, 5_000);
    expect(channel.cardSends.map((send) => [send.mls[0], send.images[0] === undefined])).toEqual([
      ["TX-1", false],
      ["TX-2", false],
      ["TX-2", true],
      ["TX-3", false],
    ]);
  });

  it("sends none with LISTING_CARDS_MAX=0", async () => {
    const channel = new CardChannel();
    start(channel, 0);
    await bridges[0]?.accept(inbound("homes?"));
    await holds(async () => (await store.work.stats()).items === 0, 5_000);
    expect(channel.cardSends).toEqual([]);
    expect(listingCalls).toBe(0);
  });

  it("resumed after its holder stopped mid-cards, sends only the cards not sent yet, without looking them up again", async () => {
    const first = new CardChannel();
    let crash: (() => void) | undefined;
    // The second card's send never completes: the holder goes down meanwhile.
    first.onCards = (cards) =>
      cards[0]?.mlsNumber === "TX-2"
        ? new Promise((_resolve, reject) => {
            crash = () => reject(new Error("the process died"));
          })
        : Promise.resolve();
    const holder = start(first);
    await holder.accept(inbound("homes?"));
    await holds(() => crash !== undefined, 5_000);
    const lookups = listingCalls;
    const stopping = holder.stop(0);
    // The holder hands the conversation over (its fence goes down), then the send fails with it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    crash?.();
    await stopping;
    expect(first.cardSends.map((send) => send.mls[0])).toEqual(["TX-1", "TX-2"]);

    const second = new CardChannel();
    start(second);
    await holds(async () => (await store.work.stats()).items === 0, 10_000);
    // The answer was delivered before: not again. The first card was recorded as sent: only the others follow.
    expect(second.messagesIn("c1")).toEqual([]);
    expect(second.cardSends.map((send) => send.mls[0])).toEqual(["TX-2", "TX-3"]);
    expect(listingCalls).toBe(lookups);
  });
});

describe("a conversation opened from a listing's link", () => {
  it("resumed after its holder stopped mid-card, sends the greeting, the card and the question once, the visit counted once", async () => {
    const visits: unknown[] = [];
    api.route("POST", "/chat/Chatbot/LeadAdd", (req, res) => {
      visits.push(req.body);
      sendEnvelope(res, { Type: "ListingVisit", Name: "", Content: "", SessionID: 101, CreateTime: "" });
    });
    const first = new CardChannel();
    let crash: (() => void) | undefined;
    first.onCards = () =>
      new Promise((_resolve, reject) => {
        crash = () => reject(new Error("the process died"));
      });
    // LISTING_CARDS_MAX=0 turns off cards after answers, not the listing a link opens with.
    const holder = start(first, 0);
    await holder.accept(inbound("/start l-TX-2"));
    await holds(() => crash !== undefined, 5_000);
    const stopping = holder.stop(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    crash?.();
    await stopping;

    const second = new CardChannel();
    start(second, 0);
    await holds(async () => (await store.work.stats()).items === 0, 10_000);
    expect(second.cardSends.map((send) => send.mls)).toEqual([["TX-2"]]);
    // The first contact was greeted before the card, once: by the first holder.
    expect(first.messagesIn("c1").map((message) => message.text)).toEqual([GREETING]);
    expect(second.messagesIn("c1").map((message) => message.text)).toEqual(["Would you like to book a viewing?"]);
    expect(visits).toEqual([expect.objectContaining({ Type: "ListingVisit", Content: "MLS TX-2 via fake" })]);
  });
});

describe("the first message of a conversation", () => {
  it("a tap on Book a viewing gets the greeting first, once, then the flow's question", async () => {
    const channel = new CardChannel();
    start(channel);
    await bridges[0]?.accept(viewingTap("TX-1"));
    await holds(() => channel.messagesIn("c1").length === 2, 5_000);
    expect(channel.messagesIn("c1").map((message) => message.text)).toEqual([
      GREETING,
      expect.stringMatching(/^When would you like to visit /),
    ]);
    await bridges[0]?.accept(inbound("Saturday at 10am"));
    await holds(() => channel.messagesIn("c1").length === 3, 5_000);
    expect(channel.messagesIn("c1").filter((message) => message.text === GREETING)).toHaveLength(1);
  });

  it("a listing link's code gets the greeting first, then the card and the viewing question", async () => {
    const channel = new CardChannel();
    start(channel);
    await bridges[0]?.accept(inbound("l-TX-3"));
    await holds(() => channel.messagesIn("c1").length === 2, 5_000);
    expect(channel.messagesIn("c1").map((message) => message.text)).toEqual([
      GREETING,
      "Would you like to book a viewing?",
    ]);
    expect(channel.cardSends.map((send) => send.mls)).toEqual([["TX-3"]]);
    // Again later: no second greeting.
    await bridges[0]?.accept(inbound("l-TX-2"));
    await holds(() => channel.messagesIn("c1").length === 3, 5_000);
    expect(channel.messagesIn("c1").filter((message) => message.text === GREETING)).toHaveLength(1);
  });
});

describe("the bridge's own words in the chatbot's AIResponseLanguage", () => {
  it("asks the viewing flow's and the listing link's questions, and labels the card's buttons, in Spanish", async () => {
    api.route("POST", "/chat/Chatbot/Get", (_req, res) =>
      sendEnvelope(res, { serialNumber: "bot-1", AIResponseLanguage: "Spanish" }),
    );
    const channel = new CardChannel();
    start(channel);
    await bridges[0]?.accept(inbound("l-TX-3", "es1"));
    await holds(() => channel.messagesIn("es1").length === 2, 5_000);
    expect(channel.messagesIn("es1")[1]?.text).toBe("¿Te gustaría reservar una visita?");
    expect(channel.cardSends[0]?.labels).toEqual({
      details: "Detalles",
      similar: "Casas similares",
      viewing: "Reservar visita",
    });
    await bridges[0]?.accept(viewingTap("TX-1", "es1"));
    await holds(() => channel.messagesIn("es1").length === 3, 5_000);
    expect(channel.messagesIn("es1")[2]?.text).toMatch(/^¿Cuándo te gustaría visitar /);
  });
});
