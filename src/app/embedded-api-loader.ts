import { lazyPart } from "../common/lazy-parts.js";

/**
 * The embedded chatbot API with its server, stores, answer engine and tokenizer, for `chatbridge start` and the
 * commands that talk to a chatbot when CHATBOT_API_URL is unset; imported on first use (src/common/lazy-parts.ts). Apart from
 * lazy-parts.ts, which the metrics import, so that its dynamic import makes no import cycle.
 */
export const loadEmbeddedApi = lazyPart("embedded-api", () => import("../server/embedded-api.js"));
