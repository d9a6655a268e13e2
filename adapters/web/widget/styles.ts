import type { WidgetSettings } from "./protocol.js";

/**
 * The widget's style sheet, inside its shadow root: nothing of the page's CSS reaches it and nothing of it leaks
 * out. Colours come from the chatbot's settings as custom properties; dark mode follows the visitor's system;
 * under 600 px wide the open panel takes the whole screen (`dvh`, so mobile browsers' bars do not hide the input).
 */
export function styles(settings: WidgetSettings): string {
  const { bot, user } = settings.colors;
  const side = settings.align === "left" ? "left" : "right";
  return `
:host { all: initial; }
* { box-sizing: border-box; }
.root { --bot-bg: ${bot.background}; --bot-fg: ${bot.text}; --user-bg: ${user.background}; --user-fg: ${user.text};
  --surface: #fff; --ink: rgb(17,24,39); --muted: rgba(17,24,39,.65); --line: rgba(17,24,39,.15);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
@media (prefers-color-scheme: dark) {
  .root { --surface: rgb(24,24,27); --ink: rgb(244,244,245); --muted: rgba(244,244,245,.7); --line: rgba(244,244,245,.18); }
}
.launcher { position: fixed; bottom: 20px; ${side}: 20px; width: 60px; height: 60px; border-radius: 50%; border: 0;
  background: var(--bot-bg); color: var(--bot-fg); cursor: pointer; box-shadow: 0 6px 20px rgba(0,0,0,.25);
  display: grid; place-items: center; z-index: 2147483000; padding: 0; overflow: hidden; }
.launcher img { width: 100%; height: 100%; object-fit: cover; }
.launcher svg { width: 28px; height: 28px; }
.launcher:focus-visible, button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--bot-bg); outline-offset: 2px; }
.panel { position: fixed; bottom: 92px; ${side}: 20px; width: 380px; height: min(640px, calc(100dvh - 112px));
  background: var(--surface); border-radius: 16px; box-shadow: 0 12px 40px rgba(0,0,0,.3); display: flex;
  flex-direction: column; overflow: hidden; z-index: 2147483000; }
.panel[hidden] { display: none; }
.page .panel { position: static; width: 100%; height: 100dvh; border-radius: 0; box-shadow: none; }
@media (max-width: 600px) { .panel { inset: 0; width: 100%; height: 100dvh; border-radius: 0; }
  /* Under the full-screen panel the launcher would take the focus unseen; Escape and Close bring it back. */
  .launcher[aria-expanded="true"] { display: none; } }
header { display: flex; align-items: center; gap: 10px; padding: 12px 14px; background: var(--bot-bg); color: var(--bot-fg); }
header h2 { font-size: 16px; margin: 0; flex: 1; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.avatar { width: 34px; height: 34px; border-radius: 50%; object-fit: cover; background: rgba(255,255,255,.25);
  display: grid; place-items: center; font-weight: 700; flex: none; }
header a, header button { color: inherit; background: transparent; border: 0; cursor: pointer; display: grid;
  place-items: center; width: 32px; height: 32px; border-radius: 8px; padding: 0; }
header svg { width: 18px; height: 18px; fill: currentColor; }
.log { flex: 1; overflow-y: auto; padding: 14px; display: flex; flex-direction: column; gap: 10px; }
.bubble { max-width: 85%; padding: 9px 12px; border-radius: 14px; overflow-wrap: anywhere; }
.bot { align-self: flex-start; background: var(--bot-bg); color: var(--bot-fg); white-space: pre-wrap; border-bottom-left-radius: 4px; }
.user { align-self: flex-end; background: var(--user-bg); color: var(--user-fg); border: 1px solid var(--line); border-bottom-right-radius: 4px; white-space: pre-wrap; }
.bot a { color: inherit; }
.bot pre { white-space: pre; overflow-x: auto; background: rgba(0,0,0,.18); padding: 8px; border-radius: 8px; margin: 0; }
.bot table { border-collapse: collapse; white-space: normal; display: block; overflow-x: auto; }
.bot th, .bot td { border: 1px solid currentColor; padding: 2px 8px; text-align: left; }
.bot .right { text-align: right; } .bot .center { text-align: center; }
.bot blockquote { margin: 0; padding-left: 10px; border-left: 3px solid currentColor; }
.bot hr { border: 0; border-top: 1px solid currentColor; margin: 4px 0; }
/* No opacity: the bubble's colours are chosen to contrast 4.5:1 at full strength only. */
time { display: block; font-size: 11px; margin-top: 2px; }
.cards { list-style: none; margin: -4px 0 0; padding: 2px 2px 8px; display: flex; gap: 10px; overflow-x: auto;
  scroll-snap-type: x mandatory; flex: none; }
.card { flex: none; width: 220px; scroll-snap-align: start; display: flex; flex-direction: column; gap: 2px;
  border: 1px solid var(--line); border-radius: 12px; overflow: hidden; background: var(--surface); color: var(--ink); padding-bottom: 10px; }
.card .photo { width: 100%; aspect-ratio: 4 / 3; object-fit: cover; display: block; background: var(--line); margin-bottom: 6px; }
.card .photo[hidden] { display: none; }
.card p { margin: 0 10px; font-size: 13px; }
.card .price { font-size: 16px; font-weight: 700; margin-top: 8px; }
.card .photo + .price { margin-top: 0; }
.card .facts, .card .address { color: var(--muted); }
.card .badge { font-size: 11px; font-weight: 600; padding: 1px 6px; border-radius: 999px; vertical-align: 2px; }
.card .soon { background: rgb(254,243,199); color: rgb(120,53,15); }
.card .sold { background: rgb(185,28,28); color: #fff; }
.card .details { margin: 6px 10px 0; align-self: flex-start; background: var(--bot-bg); color: var(--bot-fg);
  border-radius: 8px; padding: 5px 12px; font-size: 13px; font-weight: 600; text-decoration: none; }
.card .details:hover { text-decoration: underline; }
.card button.details { border: 0; cursor: pointer; font-family: inherit; }
/* A row of cards follows its anchor, which takes no room. */
.card-row { display: none; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; padding: 0 14px 8px; }
.chips button { border: 1px solid var(--bot-bg); color: var(--ink); background: transparent; border-radius: 999px;
  padding: 6px 12px; cursor: pointer; font: inherit; }
.typing { padding: 0 14px 6px; min-height: 20px; font-size: 13px; color: var(--muted); }
.privacy { margin: 0 14px 10px; padding: 10px 12px; border: 1px solid var(--line); border-radius: 10px; font-size: 13px; }
.privacy p { margin: 0 0 8px; }
.privacy a { color: inherit; }
.privacy .error { color: rgb(185,28,28); margin: 6px 0 0; }
.privacy .error:empty { display: none; }
@media (prefers-color-scheme: dark) { .privacy .error { color: rgb(252,165,165); } }
.privacy button, form.compose button { background: var(--bot-bg); color: var(--bot-fg); border: 0; border-radius: 10px;
  padding: 8px 14px; cursor: pointer; font: inherit; }
.contact { margin: 0 14px 10px; padding: 10px 12px; border: 1px solid var(--line); border-radius: 10px; font-size: 14px;
  display: flex; flex-direction: column; gap: 6px; }
.contact[hidden] { display: none; }
.contact p { margin: 0; }
.contact input { padding: 8px 10px; border-radius: 8px; border: 1px solid var(--line); background: transparent; color: var(--ink); font: inherit; }
.contact .error { color: rgb(185,28,28); min-height: 1em; font-size: 13px; }
@media (prefers-color-scheme: dark) { .contact .error { color: rgb(252,165,165); } }
.contact .actions { display: flex; gap: 8px; }
.contact button { background: var(--bot-bg); color: var(--bot-fg); border: 0; border-radius: 10px; padding: 8px 14px; cursor: pointer; font: inherit; }
.contact button.cancel { background: transparent; color: var(--ink); border: 1px solid var(--line); }
form.compose { display: flex; gap: 8px; padding: 10px 14px 14px; border-top: 1px solid var(--line); }
form.compose input { flex: 1; min-width: 0; padding: 10px 12px; border-radius: 10px; border: 1px solid var(--line);
  background: transparent; color: var(--ink); font: inherit; }
form.compose input::placeholder { color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
form.compose button.icon { background: transparent; color: var(--ink); border: 1px solid var(--line); padding: 0;
  width: 42px; flex: none; display: grid; place-items: center; }
form.compose button.icon svg { width: 20px; height: 20px; fill: currentColor; }
form.compose button.talk[aria-pressed="true"] { background: rgb(185,28,28); color: #fff; border-color: rgb(185,28,28); }
form.compose button:disabled, form.compose input:disabled { opacity: .55; cursor: not-allowed; }
.compose-status { margin: 0; padding: 0 14px; font-size: 13px; color: var(--muted); }
.compose-status:empty { display: none; }
.attachments { display: flex; gap: 8px; padding: 8px 14px 0; overflow-x: auto; }
.attachments[hidden] { display: none; }
.preview { position: relative; flex: none; }
.preview img { width: 64px; height: 64px; object-fit: cover; border-radius: 8px; display: block; }
.preview .remove { position: absolute; top: -6px; right: -6px; width: 24px; height: 24px; border-radius: 50%; border: 0;
  background: rgb(17,24,39); color: #fff; cursor: pointer; font: 16px/1 system-ui, sans-serif; padding: 0; }
.panel.dropping { outline: 3px dashed var(--bot-bg); outline-offset: -6px; }
.bubble .photos { display: grid; grid-template-columns: repeat(auto-fill, minmax(72px, 1fr)); gap: 4px; margin-bottom: 4px; }
.bubble .photos img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: 8px; display: block; }
.bubble audio { max-width: 100%; height: 36px; }
.file-label { display: inline-block; font-size: 12px; border: 1px solid var(--line); border-radius: 999px; padding: 1px 8px; margin: 2px 4px 0 0; }
.bubble.note { font-style: italic; }
`;
}
