import type { ChannelPlugin } from "../src/plugin/channel-plugin.js";
import { slackPlugin } from "./slack/index.js";
import { telegramPlugin } from "./telegram/index.js";
import { webPlugin } from "./web/index.js";
import { whatsappPlugin } from "./whatsapp/index.js";

/**
 * Every channel chatbridge ships, in the order of the start banner. Adding a channel is adding its folder and its
 * line here: configuration, BRIDGE_CONFIG and the start loop over this list (see adapters/README.md).
 */
export const CHANNEL_PLUGINS: readonly ChannelPlugin[] = [webPlugin, telegramPlugin, slackPlugin, whatsappPlugin];
