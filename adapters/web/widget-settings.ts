import { type ChatbotSettings, type PictureKind, pictureFileId } from "../../src/plugin/plugin-api.js";
import type { Swatch, WidgetSettings } from "./widget/protocol.js";

/** A colour's red, green and blue, 0–255. */
export type Rgb = [number, number, number];

/** The chatbot API's defaults for the two colours (docs/chatbot-api.md, chatbots). */
const DEFAULT_BOT_COLOR: Rgb = [37, 99, 235];
const DEFAULT_USER_COLOR: Rgb = [255, 255, 255];
const DEFAULT_PLACEHOLDER = "Type a message…";
/** Text colours to choose from, in order of preference: white, a soft near-black, black (always ≥ 4.58:1 with one). */
const TEXT_COLORS: Rgb[] = [
  [255, 255, 255],
  [17, 24, 39],
  [0, 0, 0],
];
/** WCAG 2's AA contrast for normal text. */
const MIN_CONTRAST = 4.5;

/**
 * The widget's settings from the chatbot's: what the API stores as free text is checked here, so that the browser
 * gets only colours it can use and only http(s) addresses (or, for a picture set as a file id, the path of the web
 * chat's picture route, which the widget resolves against the bridge's address). `fallbackName` names the widget when the chatbot's
 * settings cannot be read (the hosted platform has no `Get`): the defaults then apply to everything else. The widget
 * offers "Talk to a person" only where the request can reach someone: mail configured (`handoff.canMail`) and an
 * address, the chatbot's TalkToHumanEmail or HANDOFF_EMAIL. Photos and push-to-talk are offered as the chatbot's
 * EnableUploadImage and EnablePushToTalk say, within `limits` (the upload route's size and count, the media
 * pipeline's longest recording).
 */
export function widgetSettings(
  serialNumber: string,
  settings: ChatbotSettings | undefined,
  fallbackName: string,
  handoff: { canMail: boolean; email: string | undefined } = { canMail: false, email: undefined },
  limits: { maxBytes: number; maxFiles: number; maxVoiceSeconds: number } = {
    maxBytes: 20 * 1024 * 1024,
    maxFiles: 10,
    maxVoiceSeconds: 600,
  },
): WidgetSettings {
  const s = settings ?? {};
  return {
    chatbot: serialNumber,
    name: text(s.Name) ?? fallbackName,
    avatarUrl: httpUrl(s.ChatProfilePicture) ?? picturePath(serialNumber, "profile", s.ChatProfilePicture),
    iconUrl: httpUrl(s.ChatIcon) ?? picturePath(serialNumber, "icon", s.ChatIcon),
    align: s.ChatBubbleAlign === 1 ? "left" : "right",
    colors: {
      bot: swatch(rgb(s.ChatBubbleColor) ?? DEFAULT_BOT_COLOR),
      user: swatch(rgb(s.UserMessageColor) ?? DEFAULT_USER_COLOR),
    },
    placeholder: text(s.UserInputPlaceholder) ?? DEFAULT_PLACEHOLDER,
    popupOnce: s.ChatbotPopupOnce === true,
    privacy: privacyPolicy(s),
    social: {
      facebook: httpUrl(s.FacebookUrl),
      instagram: httpUrl(s.InstagramUrl),
      whatsapp: httpUrl(s.WhatsappUrl),
    },
    storage: s.RemoveChatLogOnBrowserClose === true ? "session" : "local",
    handoff: handoff.canMail && Boolean(text(s.TalkToHumanEmail) ?? handoff.email),
    uploads: { images: s.EnableUploadImage === true, voice: s.EnablePushToTalk === true, ...limits },
  };
}

/**
 * The web chat's picture route for a picture setting holding a file id (`GET /webchat/picture/<kind>`): `v`, the file
 * id, changes the address when an `Edit` names another file, so that browsers do not show the old one from their cache.
 */
function picturePath(serialNumber: string, kind: PictureKind, setting: string | undefined): string | undefined {
  const fileId = pictureFileId(setting);
  return fileId && `/webchat/picture/${kind}?chatbot=${encodeURIComponent(serialNumber)}&v=${fileId}`;
}

/**
 * The privacy policy visitors accept before their first message, when the chatbot has one (a name or an address):
 * the widget shows it, and the bridge records each visitor's consent to it and takes their messages only after.
 */
export function privacyPolicy(settings: ChatbotSettings | undefined): WidgetSettings["privacy"] {
  const name = text(settings?.ChatbotPrivacyPolicyName);
  const url = httpUrl(settings?.ChatbotPrivacyPolicyUrl);
  if (!name && !url) return undefined;
  return { name: name ?? "Privacy policy", description: text(settings?.ChatbotPrivacyPolicyDescription) ?? "", url };
}

/** `rgb(r,g,b)` (spaces allowed, as the API stores colours), `#rgb` or `#rrggbb`; anything else is no colour. */
export function rgb(value: string | undefined): Rgb | undefined {
  const color = value?.trim().toLowerCase() ?? "";
  const functional = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(?:,\s*[\d.]+\s*)?\)$/.exec(color);
  if (functional) {
    const channels = functional.slice(1, 4).map(Number) as Rgb;
    return channels.every((channel) => channel <= 255) ? channels : undefined;
  }
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(color)?.[1];
  if (!hex) return undefined;
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex;
  return [0, 2, 4].map((at) => Number.parseInt(full.slice(at, at + 2), 16)) as Rgb;
}

/** The colour and the first text colour that reads on it at 4.5:1 (white or black always does). */
export function swatch(background: Rgb): Swatch {
  const text = TEXT_COLORS.find((candidate) => contrast(background, candidate) >= MIN_CONTRAST) ?? [0, 0, 0];
  return { background: css(background), text: css(text) };
}

const css = (color: Rgb) => `rgb(${color.join(",")})`;

/** WCAG 2's contrast ratio of two colours. */
export function contrast(a: Rgb, b: Rgb): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function text(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function httpUrl(value: string | undefined): string | undefined {
  const candidate = value?.trim();
  if (!candidate) return undefined;
  try {
    const url = new URL(candidate);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
