import { escapeWebHtml as escapeHtml } from "./format-inline.js";

/**
 * The web chat page: plain HTML, CSS and a small script, no framework and nothing loaded from elsewhere.
 * Accessible: a labelled form, a log region that screen readers announce, keyboard-usable quick replies.
 * The server renders the chatbot's markdown (adapters/web/format.ts, escaping every character of it), so the script
 * runs no parser and nothing the chatbot says can inject HTML.
 */
export function webChatPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  :root { color-scheme: light dark; --accent: rgb(37,99,235); font-family: system-ui, sans-serif; }
  body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { padding: .75rem 1rem; background: var(--accent); color: #fff; display: flex; justify-content: space-between; align-items: center; }
  header h1 { font-size: 1.1rem; margin: 0; }
  header button { background: transparent; color: #fff; border: 1px solid #fff; border-radius: .4rem; padding: .3rem .6rem; cursor: pointer; }
  #log { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column; gap: .6rem; }
  .bubble { max-width: 46rem; padding: .6rem .8rem; border-radius: .8rem; line-height: 1.45; overflow-wrap: anywhere; }
  .bot { white-space: pre-wrap; }
  .bubble pre { white-space: pre; overflow-x: auto; background: rgba(127,127,127,.15); padding: .5rem; border-radius: .4rem; margin: 0; }
  .bubble code { font-size: .9em; }
  .bubble table { border-collapse: collapse; white-space: normal; display: block; overflow-x: auto; }
  .bubble th, .bubble td { border: 1px solid rgba(127,127,127,.4); padding: .2rem .5rem; text-align: left; }
  .bubble th.right, .bubble td.right { text-align: right; } .bubble th.center, .bubble td.center { text-align: center; }
  .bubble blockquote { margin: 0; padding-left: .7rem; border-left: 3px solid rgba(127,127,127,.5); }
  .bubble hr { border: 0; border-top: 1px solid rgba(127,127,127,.5); margin: .3rem 0; }
  .bubble .heading { font-size: 1.05em; }
  .user { align-self: flex-end; background: var(--accent); color: #fff; }
  .bot { align-self: flex-start; background: rgba(127,127,127,.15); }
  .replies { display: flex; flex-wrap: wrap; gap: .4rem; }
  .replies button { border: 1px solid var(--accent); color: var(--accent); background: transparent; border-radius: 1rem; padding: .3rem .8rem; cursor: pointer; }
  #typing { padding: 0 1rem .3rem; min-height: 1.2rem; font-size: .85rem; opacity: .7; }
  form { display: flex; gap: .5rem; padding: .75rem 1rem; border-top: 1px solid rgba(127,127,127,.3); }
  form input { flex: 1; padding: .6rem; font-size: 1rem; border-radius: .5rem; border: 1px solid rgba(127,127,127,.5); }
  form button { padding: .6rem 1rem; font-size: 1rem; border: 0; border-radius: .5rem; background: var(--accent); color: #fff; cursor: pointer; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><button id="reset" type="button">New conversation</button></header>
<main id="log" role="log" aria-live="polite" aria-label="Conversation"></main>
<div id="typing" aria-hidden="true"></div>
<form id="form">
  <label class="sr-only" for="text">Your message</label>
  <input id="text" autocomplete="off" maxlength="4000" placeholder="Type a message…" required>
  <button type="submit">Send</button>
</form>
<script>
(() => {
  const store = window.localStorage;
  let visitor = store.getItem("chatbridge.visitor");
  if (!visitor) { visitor = crypto.randomUUID().replace(/-/g, ""); store.setItem("chatbridge.visitor", visitor); }
  const log = document.getElementById("log"), typing = document.getElementById("typing");
  const form = document.getElementById("form"), input = document.getElementById("text");
  const bubbles = new Map();
  let typingTimer;

  const escape = (t) => t.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  function bubble(id, who) {
    let el = id && bubbles.get(id);
    if (!el) {
      el = document.createElement("div");
      el.className = "bubble " + who;
      log.appendChild(el);
      if (id) bubbles.set(id, el);
    }
    return el;
  }
  function show(event) {
    typing.textContent = ""; clearTimeout(typingTimer);
    const el = bubble(event.id, "bot");
    // The server rendered and escaped it (adapters/web/format.ts); an event from before it did is shown as text.
    el.innerHTML = typeof event.html === "string" ? event.html : escape(event.text);
    if (event.quickReplies && event.quickReplies.length) {
      const row = document.createElement("div");
      row.className = "replies";
      for (const reply of event.quickReplies) {
        const b = document.createElement("button");
        b.type = "button"; b.textContent = reply;
        b.addEventListener("click", () => send(reply));
        row.appendChild(b);
      }
      el.appendChild(row);
    }
    log.scrollTop = log.scrollHeight;
  }
  async function send(text, quiet) {
    if (!quiet) { bubble(null, "user").textContent = text; log.scrollTop = log.scrollHeight; }
    const messageId = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
    const res = await fetch("/webchat/messages", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: visitor, messageId, text }),
    }).catch(() => null);
    if (!res || !res.ok) show({ id: "error-" + messageId, text: "The message could not be sent. Please try again.", format: "plain" });
  }
  const events = new EventSource("/webchat/events?visitor=" + encodeURIComponent(visitor));
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "typing") {
      typing.textContent = "typing…"; clearTimeout(typingTimer);
      typingTimer = setTimeout(() => { typing.textContent = ""; }, 6000);
    } else show(event);
  };
  form.addEventListener("submit", (e) => { e.preventDefault(); const text = input.value.trim(); if (text) { input.value = ""; send(text); } });
  document.getElementById("reset").addEventListener("click", () => { log.innerHTML = ""; bubbles.clear(); send("/reset", true); });
  if (!store.getItem("chatbridge.greeted")) { store.setItem("chatbridge.greeted", "1"); send("/start", true); }
})();
</script>
</body>
</html>`;
}
