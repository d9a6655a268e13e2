import type { Channel, SentMessage } from "../../bridge/channel.js";
import type { ReplyTarget } from "../../bridge/inbound.js";

/**
 * The approved template a channel sends an alert as where free-form messages may not go (outside
 * ChannelCapabilities.freeFormWindowMs). The bridge decides the variables (see "Alerts" in docs/channels.md); the
 * channel makes them fit the platform's rules for template parameters.
 */
export interface AlertTemplate {
  /** The language the template was approved in, as the platform names it (en_US, es_MX…): its variables' language. */
  readonly language: string;
  /** Sends the template to `target` with `parameters` as its body's variables {{1}}, {{2}}…, in order. */
  send(target: ReplyTarget, parameters: readonly string[]): Promise<SentMessage>;
}

/** A channel with an approved template for alerts outside the free-form window (WhatsApp, when configured). */
export interface AlertTemplateChannel extends Channel {
  readonly alertTemplate: AlertTemplate | undefined;
}

/** The channel's alert template, where one is configured. */
export function alertTemplateOf(channel: Channel): AlertTemplate | undefined {
  return (channel as Partial<AlertTemplateChannel>).alertTemplate;
}
