/**
 * What a channel plugin (adapters/<channel>/) may use of chatbridge besides its contract (channel-plugin.ts) and the
 * markdown parser (src/markdown/): this one surface, so that the core can change behind it. Biome's rules fail the
 * build on an adapter import of anything else of src/ (see docs/architecture.md, "Walls"). It holds: the channel as
 * the bridge drives it and what comes in through it; the few tools the platforms' sides share (a capped download, a
 * token bucket, a job run while a lease is held); the
 * chatbot's settings and pictures as the web chat shows them; the utilities of every part (answering before the
 * body, ETags, loading on first use, logs, secrets); the variables' shared schemas and ConfigError; and what features
 * ask of the channels that can do more (alert templates, listing cards and their buttons).
 */

export { isPictureKind, pictureFileId } from "../api/chatbot-pictures.js";
export {
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  type DownloadOptions,
  type DraftLimits,
  MediaTooLargeError,
  type NativeStream,
  type OutgoingText,
  type SentMessage,
} from "../bridge/channel.js";
export type { ChatbotView } from "../bridge/chatbot-link.js";
export { contactLink, isContact } from "../bridge/contact.js";
export type { InboundMessage, InboundSink, MediaRef, ReplyTarget } from "../bridge/inbound.js";
export type { MalformedReason, Refusal, ReportMalformed } from "../bridge/malformed-payloads.js";
export { readCapped } from "../bridge/media/capped-body.js";
export { type BridgeMetrics, registered } from "../bridge/metrics.js";
export { TokenBucket } from "../bridge/reply/token-bucket.js";

export type { Leases } from "../bridge/store/leases.js";
export type {
  LoggedVisitorEvent,
  VisitorEventRetention,
  VisitorEvents,
  VisitorSubscription,
} from "../bridge/store/visitor-events.js";
export { runWhileLeased } from "../bridge/store/while-leased.js";
export type { ChatbotSettings, PictureKind } from "../client/index.js";

export { answerBeforeBody, answeringBeforeBody } from "../common/early-answer.js";
export { etagMatches } from "../common/etag-match.js";
export { lazyPart } from "../common/lazy-parts.js";
export type { Logger } from "../common/log.js";
export { sameSecret } from "../common/secrets.js";

export { ConfigError } from "../config/config-error.js";
export { baseUrl, nonEmptyText, optionalText } from "../config/config-variables.js";

export type { AlertTemplate } from "../features/alerts/alert-template.js";
export { CARD_LABELS, type CardAction, type CardLabels, cardActionId } from "../features/listings/card-actions.js";
export { type CardSurface, cardTapMessage } from "../features/listings/card-surface.js";
export { cardFacts, cardKind, cutText } from "../features/listings/card-text.js";
export type { ListingCard } from "../features/listings/listing-card.js";
export { mlsOfCode } from "../features/listings/listing-links.js";
