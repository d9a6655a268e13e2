import { type Conversation, newMessageId } from "./conversation.js";
import { CHAT_ICON, CLOSE_ICON, NEW_ICON, PERSON_ICON, SOCIAL_ICONS } from "./icons.js";
import type { WebChatEvent, WidgetSettings } from "./protocol.js";
import { styles } from "./styles.js";

/** How the widget is shown: a launcher bubble opening a panel on any page, or the whole page at chatbridge's `/`. */
export type WidgetMode = "bubble" | "page";

/** An e-mail address, or a phone number of 7 to 15 digits: what the bridge accepts as a contact. */
function reachable(contact: string): boolean {
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return true;
  return /^\+?[\d\s().-]{7,20}$/.test(contact) && /^\d{7,15}$/.test(contact.replace(/\D/g, ""));
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * The widget's interface in its shadow root: launcher, header (avatar, name, social links, new conversation, close),
 * the conversation log, suggested messages as chips, the privacy notice, the input. The chatbot's messages arrive
 * as HTML the server rendered and escaped; the visitor's own text is only ever set as text.
 */
export class WidgetView {
  readonly #root: HTMLElement;
  readonly #panel: HTMLElement;
  readonly #launcher: HTMLButtonElement | undefined;
  readonly #log: HTMLElement;
  readonly #chips: HTMLElement;
  readonly #typing: HTMLElement;
  readonly #form: HTMLFormElement;
  readonly #input: HTMLInputElement;
  readonly #bubbles = new Map<string, HTMLElement>();
  readonly #announcer: HTMLElement;
  /** Answers read out once each, when they stopped growing; the history replayed at load is not read out. */
  readonly #announced = new Set<string>();
  readonly #settling = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #startedAt = Date.now();
  /** New conversations this page started, whose echo it ignores. */
  readonly #ownResets = new Set<string>();
  #typingTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    shadow: ShadowRoot,
    private readonly settings: WidgetSettings,
    private readonly conversation: Conversation,
    private readonly storage: Storage,
    private readonly mode: WidgetMode,
  ) {
    const style = document.createElement("style");
    style.textContent = styles(settings);
    this.#root = document.createElement("div");
    this.#root.className = mode === "page" ? "root page" : "root";
    this.#root.innerHTML = this.#markup();
    shadow.append(style, this.#root);
    const find = <T extends HTMLElement>(selector: string) => this.#root.querySelector(selector) as T;
    this.#panel = find(".panel");
    this.#launcher = find<HTMLButtonElement>(".launcher") ?? undefined;
    this.#log = find(".log");
    this.#chips = find(".chips");
    this.#typing = find(".typing");
    this.#form = find<HTMLFormElement>("form.compose");
    this.#input = find<HTMLInputElement>("form.compose input");
    this.#announcer = find(".announcer");
    this.#wire(find);
  }

  get isOpen(): boolean {
    return !this.#panel.hidden;
  }

  open(): void {
    this.#panel.hidden = false;
    this.#launcher?.setAttribute("aria-expanded", "true");
    this.#greetOnce();
    // The privacy notice must be answered before anything can be typed: a keyboard user starts at its button.
    const consent = this.#root.querySelector<HTMLButtonElement>(".consent");
    (this.#privacyPending && consent ? consent : this.#input).focus();
  }

  close(): void {
    if (this.mode === "page") return;
    this.#panel.hidden = true;
    this.#launcher?.setAttribute("aria-expanded", "false");
    this.#launcher?.focus();
  }

  /**
   * Shows one event of the stream: a message (new, or a newer state of one shown; the visitor's own too, so that a
   * reload shows the whole conversation), "typing…", or a new conversation's start.
   */
  show(event: WebChatEvent): void {
    if (event.type === "reset") {
      if (!this.#ownResets.delete(event.id)) this.#clear();
      return;
    }
    if (event.type === "typing") {
      this.#typing.textContent = `${this.settings.name} is typing…`;
      clearTimeout(this.#typingTimer);
      this.#typingTimer = setTimeout(() => {
        this.#typing.textContent = "";
      }, 6000);
      return;
    }
    const at = event.at ? new Date(event.at) : new Date();
    if (event.from === "visitor") {
      // The suggestions offered before it were answered by it.
      this.#chips.replaceChildren();
      // Drawn already when this page sent it; from another tab or before a reload, drawn now.
      if (!this.#bubbles.has(event.id)) {
        const bubble = this.#bubble("user", at);
        (bubble.querySelector(".body") as HTMLElement).textContent = event.text;
        this.#bubbles.set(event.id, bubble);
      }
      return;
    }
    this.#typing.textContent = "";
    clearTimeout(this.#typingTimer);
    let bubble = this.#bubbles.get(event.id);
    if (!bubble) {
      bubble = this.#bubble("bot", at);
      this.#bubbles.set(event.id, bubble);
    }
    const body = bubble.querySelector(".body") as HTMLElement;
    // Rendered and escaped by the server (adapters/web/format.ts); an event of an older server is shown as text.
    if (typeof event.html === "string") body.innerHTML = event.html;
    else body.textContent = event.text;
    if (event.quickReplies?.length) this.#showChips(event.quickReplies);
    this.#log.scrollTop = this.#log.scrollHeight;
    if (at.getTime() >= this.#startedAt - 1000) this.#announceWhenSettled(event.id, body);
  }

  /** Reads an answer out once, when it has not changed for a moment, rather than at every streamed update. */
  #announceWhenSettled(id: string, body: HTMLElement): void {
    if (this.#announced.has(id)) return;
    clearTimeout(this.#settling.get(id));
    this.#settling.set(
      id,
      setTimeout(() => {
        this.#settling.delete(id);
        this.#announced.add(id);
        this.#announcer.textContent = `${this.settings.name}: ${body.textContent ?? ""}`;
      }, 1200),
    );
  }

  #clear(): void {
    this.#log.replaceChildren();
    this.#bubbles.clear();
    this.#chips.replaceChildren();
  }

  /** Says that the connection is lost for good (the stream was closed), or back. */
  trouble(failed: boolean): void {
    this.#typing.textContent = failed ? "Connection lost. Reload the page to continue." : this.#typing.textContent;
  }

  get #privacyPending(): boolean {
    return this.settings.privacy !== undefined && this.storage.getItem(this.#key("privacy")) === null;
  }

  #key(name: string): string {
    return `chatbridge.${this.settings.chatbot}.${name}`;
  }

  #markup(): string {
    const { name, avatarUrl, iconUrl, social, privacy, placeholder } = this.settings;
    const avatar = avatarUrl
      ? `<img class="avatar" src="${html(avatarUrl)}" alt="">`
      : `<span class="avatar" aria-hidden="true">${html(name.slice(0, 1).toUpperCase())}</span>`;
    const links = (Object.keys(SOCIAL_ICONS) as (keyof typeof SOCIAL_ICONS)[])
      .filter((network) => social[network])
      .map(
        (network) =>
          `<a class="social" href="${html(social[network] as string)}" target="_blank" rel="noopener noreferrer" aria-label="${name} on ${network[0]?.toUpperCase()}${network.slice(1)}">${SOCIAL_ICONS[network]}</a>`,
      )
      .join("");
    const launcher =
      this.mode === "page"
        ? ""
        : `<button class="launcher" type="button" aria-label="Chat with ${html(name)}" aria-expanded="false" aria-controls="chatbridge-panel">${
            iconUrl ? `<img src="${html(iconUrl)}" alt="">` : CHAT_ICON
          }</button>`;
    const notice = privacy
      ? `<div class="privacy" role="region" aria-label="${html(privacy.name)}"><p><strong>${html(privacy.name)}</strong>${
          privacy.description ? ` — ${html(privacy.description)}` : ""
        }${
          privacy.url ? ` <a href="${html(privacy.url)}" target="_blank" rel="noopener noreferrer">Read it</a>` : ""
        }</p><button type="button" class="consent">I agree</button></div>`
      : "";
    return `${launcher}
<section class="panel" id="chatbridge-panel" ${this.mode === "page" ? "" : 'role="dialog" hidden'} aria-label="${html(name)}">
  <header>${avatar}<h2>${html(name)}</h2>${links}
    ${
      this.settings.handoff
        ? `<button type="button" class="human" aria-label="Talk to a person" title="Talk to a person" aria-controls="chatbridge-contact-form">${PERSON_ICON}</button>`
        : ""
    }
    <button type="button" class="reset" aria-label="New conversation" title="New conversation">${NEW_ICON}</button>
    ${this.mode === "page" ? "" : `<button type="button" class="close" aria-label="Close chat" title="Close">${CLOSE_ICON}</button>`}
  </header>
  <div class="log" role="log" aria-live="off" aria-label="Conversation with ${html(name)}"></div>
  <div class="announcer sr-only" aria-live="polite" aria-atomic="true"></div>
  <div class="typing" aria-hidden="true"></div>
  <div class="chips"></div>
  ${notice}
  <form class="contact" id="chatbridge-contact-form" hidden aria-label="Talk to a person" novalidate>
    <p>A person from our team will contact you. How can they reach you?</p>
    <label for="chatbridge-contact">E-mail or phone number</label>
    <input id="chatbridge-contact" autocomplete="email" maxlength="254" required>
    <p class="error" role="alert"></p>
    <div class="actions"><button type="submit">Send request</button><button type="button" class="cancel">Cancel</button></div>
  </form>
  <form class="compose"><label class="sr-only" for="chatbridge-input">Your message</label>
    <input id="chatbridge-input" autocomplete="off" maxlength="4000" placeholder="${html(placeholder)}" required>
    <button type="submit">Send</button></form>
</section>`;
  }

  #wire(find: <T extends HTMLElement>(selector: string) => T): void {
    this.#launcher?.addEventListener("click", () => (this.isOpen ? this.close() : this.open()));
    find(".close")?.addEventListener("click", () => this.close());
    this.#root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.isOpen) this.close();
    });
    find(".reset").addEventListener("click", () => {
      this.#clear();
      const messageId = newMessageId();
      // Cleared already: its echo must not clear what the visitor writes meanwhile.
      this.#ownResets.add(`v-${messageId}`);
      void this.conversation.send("/reset", undefined, messageId);
    });
    find(".consent")?.addEventListener("click", () => {
      this.storage.setItem(this.#key("privacy"), new Date().toISOString());
      find(".privacy").remove();
      this.#setEnabled(true);
      this.#greetOnce();
      this.#input.focus();
    });
    this.#setEnabled(!this.#privacyPending);
    this.#wireHandoff(find);
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.#input.value.trim();
      if (text) {
        this.#input.value = "";
        this.#say(text);
      }
    });
  }

  /**
   * "Talk to a person": the visitor leaves an e-mail address or a phone number (checked here as the bridge checks
   * it), then the request goes with it, so the mail to the team says how to reach them.
   */
  #wireHandoff(find: <T extends HTMLElement>(selector: string) => T): void {
    const button = find<HTMLButtonElement>(".human");
    if (!button) return;
    const form = find<HTMLFormElement>("form.contact");
    const field = find<HTMLInputElement>("#chatbridge-contact");
    const error = find(".contact .error");
    button.addEventListener("click", () => {
      form.hidden = false;
      field.focus();
    });
    find(".contact .cancel").addEventListener("click", () => {
      form.hidden = true;
      error.textContent = "";
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const contact = field.value.trim();
      if (!reachable(contact)) {
        error.textContent = "Please enter an e-mail address (name@example.com) or a phone number with its area code.";
        field.setAttribute("aria-invalid", "true");
        field.focus();
        return;
      }
      field.removeAttribute("aria-invalid");
      error.textContent = "";
      form.hidden = true;
      this.#say("/human", `I'd like to talk to a person. You can reach me at ${contact}.`, contact);
    });
  }

  #setEnabled(enabled: boolean): void {
    for (const control of this.#form.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button")) {
      control.disabled = !enabled;
    }
  }

  /** The first time the panel opens (and the privacy policy is accepted), the chatbot greets the visitor. */
  #greetOnce(): void {
    if (this.#privacyPending || this.storage.getItem(this.#key("greeted")) !== null) return;
    this.storage.setItem(this.#key("greeted"), "1");
    void this.conversation.send("/start");
  }

  /** Shows the visitor's message (`shown`, when it is not the text sent) and sends it. */
  #say(text: string, shown = text, contact?: string): void {
    const messageId = newMessageId();
    const bubble = this.#bubble("user");
    (bubble.querySelector(".body") as HTMLElement).textContent = shown;
    // The bridge keeps it in the visitor's history as `v-<messageId>`: its echo finds this bubble.
    this.#bubbles.set(`v-${messageId}`, bubble);
    this.#chips.replaceChildren();
    this.#log.scrollTop = this.#log.scrollHeight;
    void this.conversation.send(text, contact, messageId).then((taken) => {
      if (!taken) {
        const note = this.#bubble("bot");
        (note.querySelector(".body") as HTMLElement).textContent = "The message could not be sent. Please try again.";
      }
    });
  }

  #bubble(who: "bot" | "user", at = new Date()): HTMLElement {
    const bubble = document.createElement("div");
    bubble.className = `bubble ${who}`;
    const body = document.createElement("div");
    body.className = "body";
    const time = document.createElement("time");
    time.dateTime = at.toISOString();
    time.textContent = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    bubble.append(body, time);
    this.#log.append(bubble);
    return bubble;
  }

  #showChips(replies: string[]): void {
    this.#chips.replaceChildren(
      ...replies.map((reply) => {
        const chip = document.createElement("button");
        chip.type = "button";
        chip.textContent = reply;
        chip.addEventListener("click", () => this.#say(reply));
        return chip;
      }),
    );
  }
}
