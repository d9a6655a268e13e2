/**
 * What the web chat's server and its browser widget say to each other: shared by `adapters/web/` (Node) and the
 * widget's source (bundled for the browser), types only.
 */

import type { CardAction, ListingCard } from "../../../src/plugin/card-types.js";

export type { CardAction, ListingCard } from "../../../src/plugin/card-types.js";

/** A colour and the text colour chosen to read on it (contrast ≥ 4.5:1). */
export interface Swatch {
  background: string;
  text: string;
}

/** What the widget looks like and does, from the chatbot's settings (`GET /webchat/widget?chatbot=<serial>`). */
export interface WidgetSettings {
  /** The chatbot's serial number, which the widget names in its requests. */
  chatbot: string;
  name: string;
  /**
   * ChatProfilePicture: its http(s) address, or for a file id the path of the bridge's picture route
   * (`/webchat/picture/profile?…`, relative to the bridge).
   */
  avatarUrl?: string | undefined;
  /** ChatIcon (the launcher's picture), as `avatarUrl`: an http(s) address or `/webchat/picture/icon?…`. */
  iconUrl?: string | undefined;
  /** ChatBubbleAlign: the launcher and panel at the bottom right (0) or left (1). */
  align: "left" | "right";
  /** ChatBubbleColor (the launcher, the header and the chatbot's messages) and UserMessageColor (the visitor's). */
  colors: { bot: Swatch; user: Swatch };
  /** UserInputPlaceholder. */
  placeholder: string;
  /** ChatbotPopupOnce: the panel opens by itself once per visitor. */
  popupOnce: boolean;
  /** The privacy policy shown before the first message, when the chatbot has one. */
  privacy?: { name: string; description: string; url?: string | undefined } | undefined;
  /** Links shown as icons in the header. */
  social: { facebook?: string | undefined; instagram?: string | undefined; whatsapp?: string | undefined };
  /** RemoveChatLogOnBrowserClose: the conversation is kept in session storage (gone with the browser) or local. */
  storage: "local" | "session";
  /** A request for a person can reach someone (mail configured, an address known): the widget offers it. */
  handoff: boolean;
  /**
   * What the visitor can send besides text: photos (EnableUploadImage; `maxFiles` per message, `maxBytes` each) and
   * push-to-talk recordings (EnablePushToTalk; stopped at `maxVoiceSeconds`).
   */
  uploads: { images: boolean; voice: boolean; maxBytes: number; maxFiles: number; maxVoiceSeconds: number };
}

/**
 * What the page receives over Server-Sent Events: a message's text as the bridge sent it, and the HTML the page
 * shows, rendered on the server by the block parser every channel shares (`adapters/web/format.ts`).
 */
export type WebChatEvent =
  | {
      type: "message";
      id: string;
      text: string;
      format: "markdown" | "plain";
      html: string;
      quickReplies?: string[] | undefined;
      /** `visitor` for the visitor's own messages, kept so that a reload shows the whole conversation. */
      from?: "bot" | "visitor" | undefined;
      /** When this state of the message was written (ISO 8601). */
      at?: string | undefined;
      /** The answer is still growing: a later event carries more (the page marks it `aria-busy`). */
      streaming?: true | undefined;
      /** The chatbot's limits refused the question: questions are taken again at this time (ISO 8601). */
      retryAt?: string | undefined;
      /** What the visitor's message carried besides its text, in order (a reload shows them as labels). */
      files?: ("image" | "voice")[] | undefined;
    }
  | { type: "typing" }
  /** The visitor started a new conversation: what came before is not shown again. */
  | { type: "reset"; id: string }
  /**
   * Listing cards (an answer's, or the card of the listing whose link opened the conversation), as a row of their
   * own under the messages before it, each card with a button per action ("Similar homes", "Book a viewing") whose
   * tap the page posts back as the message's `cardAction` (`card:<action>:<MLS>`).
   */
  | {
      type: "cards";
      id: string;
      cards: ListingCard[];
      actions?: CardAction[] | undefined;
      /** What the "Details" link and the buttons say, in the chatbot's language (CardLabels of card-actions.ts). */
      labels?: Record<CardAction | "details", string> | undefined;
      at?: string | undefined;
    };
