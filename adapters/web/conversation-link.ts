import type { ConversationStart, Deployment } from "../../src/plugin/channel-plugin.js";

/**
 * The bridge's web chat page with `?listing=<code>`: the widget opens its panel and sends the code as the first
 * message. On PUBLIC_URL (a printed code must reach the page from anywhere); this server's local address without it.
 */
export function webConversationLink(
  start: ConversationStart,
  deployment: Pick<Deployment, "publicUrl" | "localUrl">,
): string {
  return `${deployment.publicUrl ?? deployment.localUrl}/?listing=${start.code}`;
}
