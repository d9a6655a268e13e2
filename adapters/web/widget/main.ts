import { Conversation } from "./conversation.js";
import type { WidgetSettings } from "./protocol.js";
import { type WidgetMode, WidgetView } from "./view.js";

/**
 * The chatbot's web widget. One tag adds it to any page:
 * `<script src="https://<chatbridge>/widget.js" data-chatbot="<serial>" async></script>`
 * It reads the chatbot's settings from the bridge that served it, then draws a launcher and a panel inside a shadow
 * root of its own element (the page's CSS cannot reach it, and it adds none to the page). `data-mode="page"` (the
 * bridge's own page at `/`) draws the panel over the whole page instead. Where the chatbot's Domains do not admit the
 * page, the bridge refuses the settings and nothing is drawn.
 */
const script = document.currentScript as HTMLScriptElement | null;

/** What a listing's code looks like (src/features/listings/listing-links.ts): Telegram's start-payload characters. */
const LISTING_CODE = /^lx?-[A-Za-z0-9_-]{1,62}$/;

async function start(): Promise<void> {
  if (!script?.src) return;
  const base = script.src.replace(/\/widget\.js(?:[?#].*)?$/, "");
  const mode: WidgetMode = script.dataset.mode === "page" ? "page" : "bubble";
  const wanted = script.dataset.chatbot ? `?chatbot=${encodeURIComponent(script.dataset.chatbot)}` : "";
  const response = await fetch(`${base}/webchat/widget${wanted}`).catch(() => undefined);
  if (!response?.ok) {
    const reason = response ? ((await response.json().catch(() => ({}))) as { error?: string }).error : undefined;
    console.warn(`chatbridge widget: not shown (${reason ?? "the bridge cannot be reached"})`);
    return;
  }
  const settings = bridgePictures((await response.json()) as WidgetSettings, base);
  const storage = settings.storage === "session" ? window.sessionStorage : window.localStorage;
  const host = document.createElement("div");
  host.id = "chatbridge-widget";
  if (mode === "page") host.style.cssText = "display:block;height:100dvh";
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  const conversation = new Conversation(base, settings.chatbot, storage);
  const view = new WidgetView(shadow, settings, conversation, storage, mode);
  void conversation.listen(
    (event) => view.show(event),
    (failed) => view.trouble(failed),
  );
  // ChatbotPopupOnce: once per visitor, whatever the storage of the conversation.
  const popped = `chatbridge.${settings.chatbot}.popped`;
  if (mode === "page") view.open();
  else if (settings.popupOnce && window.localStorage.getItem(popped) === null) {
    window.localStorage.setItem(popped, new Date().toISOString());
    view.open();
  }
  // A page opened from a listing's link or QR code (`chatbridge links`) starts the conversation about that listing.
  const listing = new URLSearchParams(window.location.search).get("listing");
  if (listing && LISTING_CODE.test(listing)) view.openWithListing(listing);
}

/**
 * The settings with the pictures the bridge serves itself (a path such as `/webchat/picture/profile?…`, for a picture
 * set as a file id) made absolute on the bridge's address, since the page that shows them is another site's.
 */
function bridgePictures(settings: WidgetSettings, base: string): WidgetSettings {
  const absolute = (url: string | undefined) => (url && /^\/(?!\/)/.test(url) ? `${base}${url}` : url);
  return { ...settings, avatarUrl: absolute(settings.avatarUrl), iconUrl: absolute(settings.iconUrl) };
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void start());
else void start();
