import type {
  Channel,
  ChannelCapabilities,
  ChannelLimits,
  OutgoingText,
  SentMessage,
} from "../../src/bridge/channel.js";
import type { ReplyTarget } from "../../src/bridge/inbound.js";

/** A message as the pigeon platform shows it: its latest text, and every version it went through. */
export interface PigeonMessage {
  id: string;
  chatId: string;
  text: string;
  versions: string[];
}

/**
 * The outbound side of the throwaway "pigeon" channel: the platform is a loft of messages per bot, which the test
 * reads. Messages can be edited, so answers grow in place as on Telegram or Slack.
 */
export class PigeonChannel implements Channel {
  readonly name = "pigeon";
  readonly limits: ChannelLimits = {
    perChat: { perSecond: 10, burst: 10 },
    perGroup: { perSecond: 10, burst: 10 },
    perBot: { perSecond: 100, burst: 100 },
    minUpdateIntervalMs: { private: 50, group: 50 },
  };
  readonly messages: PigeonMessage[] = [];

  constructor(readonly botId: string) {}

  capabilities(): ChannelCapabilities {
    return { canEdit: true, nativeDraft: false, maxTextLength: 2000, quickReplies: false };
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const message = {
      id: `p${this.messages.length + 1}`,
      chatId: target.chatId,
      text: text.text,
      versions: [text.text],
    };
    this.messages.push(message);
    return { id: message.id };
  }

  async edit(_target: ReplyTarget, sent: SentMessage, text: OutgoingText): Promise<void> {
    const message = this.messages.find((candidate) => candidate.id === sent.id);
    if (!message) throw new Error(`no pigeon message ${sent.id}`);
    message.text = text.text;
    message.versions.push(text.text);
  }

  async draft(): Promise<void> {
    throw new Error("pigeons carry no drafts");
  }

  async typing(): Promise<void> {}
}
