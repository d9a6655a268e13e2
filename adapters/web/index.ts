import { z } from "zod";
import { defineChannelPlugin } from "../../src/plugin/channel-plugin.js";
import { webConversationLink } from "./conversation-link.js";
import { DEFAULT_WEB_CHAT_LIMITS, type WebChatLimitSettings, webChatLimitsVariable } from "./limit-settings.js";
import { WebChannel } from "./outbound.js";
import { PrivacyConsents } from "./privacy-consents.js";
import { webChatRoutes } from "./routes.js";
import { VisitorFiles } from "./visitor-files.js";
import { VisitorIdentity, visitorKey } from "./visitor-identity.js";
import { VisitorLimits } from "./visitor-limits.js";
import { webLimitedCounter } from "./web-metrics.js";
import { readWidgetScript } from "./widget-bundle.js";

/**
 * The web chat's variables: the key of visitors' identities, for deployments that want to set or rotate it, the
 * limits per visitor and per client address. Listing cards come through its card surface like on every channel
 * (LISTING_CARDS_MAX, shared by every channel).
 */
const WEB_VARIABLES = {
  WEB_CHAT_SECRET: {
    schema: z.string().trim().min(32, "must be at least 32 characters").optional(),
    fix: "a random string of 32 characters or more that signs web chat visitors' identities, or leave it unset to have one generated and kept in the store",
    secret: true,
  },
  WEB_CHAT_LIMITS: webChatLimitsVariable,
};

/**
 * The built-in web chat and the chatbot's embeddable widget (`/widget.js`): the page at `/`, messages in over HTTP,
 * answers out as Server-Sent Events. It takes its looks from the chatbot's settings and belongs to the bot
 * `default`; its settings are the key that signs visitors' identities and the limits per visitor and address.
 */
export const webPlugin = defineChannelPlugin<
  typeof WEB_VARIABLES,
  { secret: string | undefined; limits: WebChatLimitSettings },
  never
>({
  name: "web",
  variables: WEB_VARIABLES,
  settingsFromVariables: (values) => ({
    secret: values.WEB_CHAT_SECRET,
    limits: values.WEB_CHAT_LIMITS,
  }),
  botEntry: undefined,
  settingsForBot: (_entry, defaults) => defaults,
  conversationLink: async (_settings, start, deployment) => webConversationLink(start, deployment),
  start: async ({ bots, bridge, routes: server, store, metrics, receive, deployment }) => {
    const settings = bots[0]?.settings;
    const files = new VisitorFiles(store.keyv);
    const channel = new WebChannel(store.visitorEvents, "default", { files });
    bridge.attach(channel);
    if (receive) {
      const chatbot = bridge.chatbotOf(channel.botId);
      const identity = new VisitorIdentity(await visitorKey(store, settings?.secret));
      const limits = new VisitorLimits(
        store,
        settings?.limits ?? DEFAULT_WEB_CHAT_LIMITS,
        webLimitedCounter(metrics.registry),
      );
      const { title, handoff, maxAudioSeconds } = deployment;
      const widget = readWidgetScript();
      const consents = new PrivacyConsents(store.keyv);
      const routes = { chatbot, title, widget, handoff, identity, limits, consents, maxAudioSeconds };
      server.mount(webChatRoutes(channel, bridge, routes));
    }
    const detail = receive ? `${deployment.publicUrl ?? deployment.localUrl}/` : "answering only (role worker)";
    return { status: [{ name: "web chat", enabled: true, detail }], stop: async () => {} };
  },
});
