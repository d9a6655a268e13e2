import { z } from "zod";
import { defineChannelPlugin } from "../../src/channel-plugin.js";
import { WebChannel } from "./outbound.js";
import { webChatRoutes } from "./routes.js";
import { VisitorIdentity, visitorKey } from "./visitor-identity.js";
import { readWidgetScript } from "./widget-bundle.js";

/**
 * The web chat's variables: the key of visitors' identities, for deployments that want to set or rotate it, and how
 * many listing cards an answer shows at most.
 */
const WEB_VARIABLES = {
  WEB_CHAT_SECRET: {
    schema: z.string().trim().min(32, "must be at least 32 characters").optional(),
    fix: "a random string of 32 characters or more that signs web chat visitors' identities, or leave it unset to have one generated and kept in the store",
    secret: true,
  },
  LISTING_CARDS_MAX: {
    schema: z.coerce.number().int().min(0).max(10).default(3),
    fix: "a whole number from 0 to 10: the listing cards shown under one answer at most (0 shows none)",
  },
};

/**
 * The built-in web chat and the chatbot's embeddable widget (`/widget.js`): the page at `/`, messages in over HTTP,
 * answers out as Server-Sent Events. It takes its looks from the chatbot's settings and belongs to the bot
 * `default`; its settings are the key that signs visitors' identities and the listing cards an answer shows at most.
 */
export const webPlugin = defineChannelPlugin<
  typeof WEB_VARIABLES,
  { secret: string | undefined; cardsMax: number },
  never
>({
  name: "web",
  variables: WEB_VARIABLES,
  settingsFromVariables: (values) => ({ secret: values.WEB_CHAT_SECRET, cardsMax: values.LISTING_CARDS_MAX }),
  botEntry: undefined,
  settingsForBot: (_entry, defaults) => defaults,
  start: async ({ bots, bridge, http, store, log, receive, deployment }) => {
    const lookup = bridge.chatbotOf("default")?.listingCards;
    const max = bots[0]?.settings.cardsMax ?? 0;
    const channel = new WebChannel(store.visitorEvents, "default", lookup && { lookup, max, log });
    bridge.attach(channel);
    if (receive) {
      const chatbot = bridge.chatbotOf(channel.botId);
      const identity = new VisitorIdentity(await visitorKey(store, bots[0]?.settings.secret));
      const { title, handoff } = deployment;
      http.use(webChatRoutes(channel, bridge, { chatbot, title, widget: readWidgetScript(), handoff, identity }));
    }
    const detail = receive ? `${deployment.publicUrl ?? deployment.localUrl}/` : "answering only (role worker)";
    return { status: [{ name: "web chat", enabled: true, detail }], stop: async () => {} };
  },
});
