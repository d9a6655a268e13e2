import { defineChannelPlugin } from "../../src/channel-plugin.js";
import { WebChannel } from "./outbound.js";
import { webChatRoutes } from "./routes.js";
import { readWidgetScript } from "./widget-bundle.js";

/**
 * The built-in web chat and the chatbot's embeddable widget (`/widget.js`): the page at `/`, messages in over HTTP,
 * answers out as Server-Sent Events. It has no settings of its own — the widget takes its looks from the chatbot's
 * settings — and belongs to the bot `default`.
 */
export const webPlugin = defineChannelPlugin<Record<never, never>, Record<never, never>, never>({
  name: "web",
  variables: {},
  settingsFromVariables: () => ({}),
  botEntry: undefined,
  settingsForBot: (_entry, defaults) => defaults,
  start: async ({ bridge, http, store, receive, deployment }) => {
    const channel = new WebChannel(store.visitorEvents);
    bridge.attach(channel);
    if (receive) {
      const chatbot = bridge.chatbotOf(channel.botId);
      const { title, handoff } = deployment;
      http.use(webChatRoutes(channel, bridge, { chatbot, title, widget: readWidgetScript(), handoff }));
    }
    const detail = receive ? `${deployment.publicUrl ?? deployment.localUrl}/` : "answering only (role worker)";
    return { status: [{ name: "web chat", enabled: true, detail }], stop: async () => {} };
  },
});
