import { z } from "zod";
import { defineChannelPlugin } from "../../src/channel-plugin.js";
import { WebChannel } from "./outbound.js";
import { PrivacyConsents } from "./privacy-consents.js";
import { webChatRoutes } from "./routes.js";
import { VisitorFiles } from "./visitor-files.js";
import { VisitorIdentity, visitorKey } from "./visitor-identity.js";
import { readWidgetScript } from "./widget-bundle.js";

/** The web chat's one variable: the key of visitors' identities, for deployments that want to set or rotate it. */
const WEB_VARIABLES = {
  WEB_CHAT_SECRET: {
    schema: z.string().trim().min(32, "must be at least 32 characters").optional(),
    fix: "a random string of 32 characters or more that signs web chat visitors' identities, or leave it unset to have one generated and kept in the store",
    secret: true,
  },
};

/**
 * The built-in web chat and the chatbot's embeddable widget (`/widget.js`): the page at `/`, messages in over HTTP,
 * answers out as Server-Sent Events. It takes its looks from the chatbot's settings and belongs to the bot
 * `default`; its one setting is the key that signs visitors' identities.
 */
export const webPlugin = defineChannelPlugin<typeof WEB_VARIABLES, { secret: string | undefined }, never>({
  name: "web",
  variables: WEB_VARIABLES,
  settingsFromVariables: (values) => ({ secret: values.WEB_CHAT_SECRET }),
  botEntry: undefined,
  settingsForBot: (_entry, defaults) => defaults,
  start: async ({ bots, bridge, http, store, receive, deployment }) => {
    const files = new VisitorFiles(store.keyv);
    const channel = new WebChannel(store.visitorEvents, "default", files);
    bridge.attach(channel);
    if (receive) {
      const chatbot = bridge.chatbotOf(channel.botId);
      const identity = new VisitorIdentity(await visitorKey(store, bots[0]?.settings.secret));
      const { title, handoff, maxAudioSeconds } = deployment;
      const widget = readWidgetScript();
      const consents = new PrivacyConsents(store.keyv);
      const routes = { chatbot, title, widget, handoff, identity, consents, maxAudioSeconds };
      http.use(webChatRoutes(channel, bridge, routes));
    }
    const detail = receive ? `${deployment.publicUrl ?? deployment.localUrl}/` : "answering only (role worker)";
    return { status: [{ name: "web chat", enabled: true, detail }], stop: async () => {} };
  },
});
