import { defineChannelPlugin } from "../../src/channel-plugin.js";
import { WebChannel } from "./outbound.js";
import { webChatRoutes } from "./routes.js";

/**
 * The built-in web chat: the page at `/`, messages in over HTTP, answers out as Server-Sent Events. It has no
 * settings of its own (the page takes its title from the chatbot) and belongs to the bot `default`.
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
    if (receive) http.use(webChatRoutes(channel, bridge, { title: deployment.title }));
    const detail = receive ? `${deployment.publicUrl ?? deployment.localUrl}/` : "answering only (role worker)";
    return { status: [{ name: "web chat", enabled: true, detail }], stop: async () => {} };
  },
});
