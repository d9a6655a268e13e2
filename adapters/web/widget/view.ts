import { showCards } from "./cards.js";
import { type Composed, Composer } from "./composer.js";
import { wireContactForm } from "./contact-form.js";
import { type Conversation, newMessageId } from "./conversation.js";
import { CHAT_ICON } from "./icons.js";
import { letterAvatar, panelMarkup, type WidgetMode } from "./panel-markup.js";
import type { CardAction, WebChatEvent, WidgetSettings } from "./protocol.js";
import { styles } from "./styles.js";

export type { WidgetMode } from "./panel-markup.js";

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
  readonly #composer: Composer;
  readonly #bubbles = new Map<string, HTMLElement>();
  readonly #announcer: HTMLElement;
  /** Answers read out once each, when they stopped growing; the history replayed at load is not read out. */
  readonly #announced = new Set<string>();
  /** Messages a new conversation took off the page. */
  readonly #cleared = new Set<string>();
  /** Answers still growing (their last event said `streaming`). */
  readonly #growing = new Set<string>();
  #holdTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #startedAt = Date.now();
  /** New conversations this page started, whose echo it ignores. */
  readonly #ownResets = new Set<string>();
  #typingTimer: ReturnType<typeof setTimeout> | undefined;
  /** The code of the listing whose link opened the page, which starts the conversation about that listing. */
  #listing: string | undefined;

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
    this.#root.innerHTML = panelMarkup(settings, mode);
    shadow.append(style, this.#root);
    const find = <T extends HTMLElement>(selector: string) => this.#root.querySelector(selector) as T;
    this.#panel = find(".panel");
    this.#launcher = find<HTMLButtonElement>(".launcher") ?? undefined;
    this.#log = find(".log");
    this.#chips = find(".chips");
    this.#typing = find(".typing");
    this.#composer = new Composer(this.#root, settings, {
      submit: (composed) => this.#say(composed.text, composed.text, undefined, composed.photos),
      voice: (recording) => this.#sendVoice(recording),
    });
    this.#announcer = find(".announcer");
    this.#withoutBrokenPictures();
    this.#wire(find);
  }

  get isOpen(): boolean {
    return !this.#panel.hidden;
  }

  /**
   * Opens the panel for a page opened from a listing's link (`?listing=<code>`, from `chatbridge links`): the page
   * sends `/start <code>` instead of the greeting's `/start`, and the bridge answers with the greeting (first contact),
   * the listing's card and a question.
   */
  openWithListing(code: string): void {
    this.#listing = code;
    this.open();
  }

  open(): void {
    this.#panel.hidden = false;
    this.#launcher?.setAttribute("aria-expanded", "true");
    this.#greetOnce();
    // The privacy notice must be answered before anything can be typed: a keyboard user starts at its button.
    const consent = this.#root.querySelector<HTMLButtonElement>(".consent");
    (this.#privacyPending && consent ? consent : this.#composer.input).focus();
  }

  close(): void {
    if (this.mode === "page") return;
    void this.#composer.cancel();
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
    if (event.type === "cards") {
      if (this.#cleared.has(event.id)) return;
      // A row of its own, after the answer it follows; kept by id like a bubble, so "New conversation" clears it.
      let anchor = this.#bubbles.get(event.id);
      if (!anchor) {
        anchor = document.createElement("div");
        anchor.className = "card-row";
        this.#log.append(anchor);
        this.#bubbles.set(event.id, anchor);
      }
      showCards(anchor, event.cards, event.actions ?? [], event.labels, (card, action) =>
        this.#tapCard(action, card.mlsNumber),
      );
      this.#log.scrollTop = this.#log.scrollHeight;
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
        // The files themselves stay with the bridge: a reload names them.
        for (const kind of event.files ?? []) {
          const label = document.createElement("span");
          label.className = "file-label";
          label.textContent = kind === "image" ? "Photo" : "Voice message";
          bubble.insertBefore(label, bubble.querySelector("time"));
        }
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
    // Busy while it grows, so assistive technology waits for the whole answer.
    this.#streaming(event.id, event.streaming === true);
    bubble.setAttribute("aria-busy", String(event.streaming === true));
    if (!event.streaming && at.getTime() >= this.#startedAt - 1000) this.#announce(event.id, body);
    if (event.retryAt) this.#holdInputUntil(new Date(event.retryAt));
  }

  /** Reads a finished answer out once (a replayed history is not read out). */
  #announce(id: string, body: HTMLElement): void {
    if (this.#announced.has(id)) return;
    this.#announced.add(id);
    this.#announcer.textContent = `${this.settings.name}: ${body.textContent ?? ""}`;
  }

  /** The log is busy while any answer in it is still growing. */
  #streaming(id: string, growing: boolean): void {
    if (growing) this.#growing.add(id);
    else this.#growing.delete(id);
    this.#log.setAttribute("aria-busy", String(this.#growing.size > 0));
  }

  /**
   * The chatbot's limits refused a question until `until`: the input says when the visitor can write again and is
   * given back then (at once when that time has passed, e.g. in a replayed history).
   */
  #holdInputUntil(until: Date): void {
    const wait = until.getTime() - Date.now();
    if (wait <= 0 || this.#privacyPending) return;
    clearTimeout(this.#holdTimer);
    this.#setEnabled(false);
    this.#composer.input.placeholder = `You can write again at ${until.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
    this.#holdTimer = setTimeout(() => {
      this.#composer.input.placeholder = this.settings.placeholder;
      this.#setEnabled(true);
    }, wait);
  }

  #clear(): void {
    for (const id of this.#bubbles.keys()) this.#cleared.add(id);
    this.#log.replaceChildren();
    this.#bubbles.clear();
    this.#chips.replaceChildren();
    this.#growing.clear();
    this.#log.setAttribute("aria-busy", "false");
  }

  /** Says that the connection is lost for good (the stream was closed), or back. */
  trouble(failed: boolean): void {
    this.#typing.textContent = failed ? "Connection lost. Reload the page to continue." : this.#typing.textContent;
  }

  /** The policy in force, as accepted consent is kept: a new name or address is asked for again. */
  get #policyId(): string {
    const { privacy } = this.settings;
    return privacy ? `${privacy.name}\n${privacy.url ?? ""}` : "";
  }

  get #privacyPending(): boolean {
    return this.settings.privacy !== undefined && this.storage.getItem(this.#key("privacy")) !== this.#policyId;
  }

  #key(name: string): string {
    return `chatbridge.${this.settings.chatbot}.${name}`;
  }

  /** A picture that cannot be shown (gone, not an image, an API that does not serve it) gives way to the letter or icon. */
  #withoutBrokenPictures(): void {
    const avatar = this.#root.querySelector<HTMLImageElement>("header img.avatar");
    avatar?.addEventListener("error", () => (avatar.outerHTML = letterAvatar(this.settings.name)), { once: true });
    const icon = this.#launcher?.querySelector("img");
    icon?.addEventListener("error", () => (icon.outerHTML = CHAT_ICON), { once: true });
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
    const agree = find<HTMLButtonElement>(".consent");
    agree?.addEventListener("click", async () => {
      agree.disabled = true;
      // Recorded by the bridge, which takes no message before it; kept here too, so the notice is not shown again.
      if (!(await this.conversation.consent())) {
        agree.disabled = false;
        find(".privacy .error").textContent = "Your consent could not be recorded. Please try again.";
        return;
      }
      this.storage.setItem(this.#key("privacy"), this.#policyId);
      find(".privacy").remove();
      this.#setEnabled(true);
      this.#greetOnce();
      this.#composer.input.focus();
    });
    this.#setEnabled(!this.#privacyPending);
    wireContactForm(this.#root, (contact) =>
      this.#say("/human", `I'd like to talk to a person. You can reach me at ${contact}.`, contact),
    );
  }

  /** Sending (and asking for a person) waits for the privacy policy's acceptance and the chatbot's limits. */
  #setEnabled(enabled: boolean): void {
    this.#composer.setEnabled(enabled);
    const human = this.#root.querySelector<HTMLButtonElement>("header .human");
    if (human) human.disabled = !enabled;
  }

  /**
   * The first time the panel opens (and the privacy policy is accepted), the chatbot greets the visitor — or, opened
   * from a listing's link, answers its code.
   */
  #greetOnce(): void {
    if (this.#privacyPending) return;
    if (this.#listing !== undefined) {
      this.#startWithListing(this.#listing);
      return;
    }
    if (this.storage.getItem(this.#key("greeted")) !== null) return;
    this.storage.setItem(this.#key("greeted"), "1");
    void this.conversation.send("/start");
  }

  /**
   * Sends a listing's code once per code and visitor (after the privacy policy, like the greeting), so a reload
   * neither counts a second visit nor shows the card again. It goes as `/start <code>`, as Telegram's deep link
   * does: a command, which the bridge keeps out of the visitor's history, so no bubble of the visitor shows the code
   * (now or after a reload) — only the greeting on first contact, the listing's card and the viewing question.
   */
  #startWithListing(code: string): void {
    const sent = this.#key("listing");
    if (this.storage.getItem(sent) === code) return;
    this.storage.setItem(sent, code);
    this.storage.setItem(this.#key("greeted"), "1");
    void this.conversation.send(`/start ${code}`).then(({ taken }) => {
      // Not taken (the bridge was away, or the visitor over a limit): the next load of the page tries again.
      if (!taken) this.storage.removeItem(sent);
    });
  }

  /**
   * Shows the visitor's message (`shown`, when it is not the text sent) with its photos, uploads them, and sends it.
   */
  #say(text: string, shown = text, contact?: string, photos: Composed["photos"] = []): void {
    const messageId = newMessageId();
    const bubble = this.#bubble("user");
    (bubble.querySelector(".body") as HTMLElement).textContent = shown;
    if (photos.length > 0) {
      const gallery = document.createElement("div");
      gallery.className = "photos";
      for (const [index, photo] of photos.entries()) {
        const image = document.createElement("img");
        image.src = URL.createObjectURL(photo);
        image.alt = `Photo ${index + 1}`;
        gallery.append(image);
      }
      bubble.insertBefore(gallery, bubble.firstChild);
    }
    // The bridge keeps it in the visitor's history as `v-<messageId>`: its echo finds this bubble.
    this.#bubbles.set(`v-${messageId}`, bubble);
    this.#chips.replaceChildren();
    this.#log.scrollTop = this.#log.scrollHeight;
    void this.#deliver(text, contact, messageId, photos);
  }

  /**
   * A tap on a card's button ("Similar homes", "Book a viewing"): shown as the visitor's message, in the words the
   * bridge keeps in the history, and posted as the card's action, whose id is the one every channel's button carries
   * (src/features/listings/card-actions.ts); the bridge asks the questions.
   */
  #tapCard(action: CardAction, mlsNumber: string): void {
    const messageId = newMessageId();
    const bubble = this.#bubble("user");
    (bubble.querySelector(".body") as HTMLElement).textContent =
      action === "similar" ? `Show me homes similar to MLS ${mlsNumber}` : `Book a viewing of MLS ${mlsNumber}`;
    this.#bubbles.set(`v-${messageId}`, bubble);
    this.#chips.replaceChildren();
    this.#log.scrollTop = this.#log.scrollHeight;
    void this.conversation.send("", undefined, messageId, undefined, `card:${action}:${mlsNumber}`).then((sent) => {
      if (!sent.taken) this.#failed("The message could not be sent. Please try again.");
    });
  }

  /** A push-to-talk recording, sent as a message of its own. */
  #sendVoice(recording: Blob): void {
    const messageId = newMessageId();
    const bubble = this.#bubble("user");
    const player = document.createElement("audio");
    player.controls = true;
    player.src = URL.createObjectURL(recording);
    player.setAttribute("aria-label", "Your voice message");
    (bubble.querySelector(".body") as HTMLElement).append(player);
    this.#bubbles.set(`v-${messageId}`, bubble);
    this.#chips.replaceChildren();
    this.#log.scrollTop = this.#log.scrollHeight;
    void this.#deliver("", undefined, messageId, [recording]);
  }

  /** Uploads the files (one at a time, in order), then posts the message naming them; says so when anything fails. */
  async #deliver(text: string, contact: string | undefined, messageId: string, files: Blob[]): Promise<void> {
    const ids: string[] = [];
    for (const file of files) {
      const uploaded = await this.conversation.upload(file);
      if ("error" in uploaded) return this.#failed(uploaded.error);
      ids.push(uploaded.file);
    }
    const sent = await this.conversation.send(text, contact, messageId, ids.length > 0 ? ids : undefined);
    if (sent.taken) return;
    this.#failed(
      sent.retryAfterSeconds === undefined
        ? "The message could not be sent. Please try again."
        : `You are sending messages too quickly. You can write again in ${sent.retryAfterSeconds} s.`,
    );
  }

  #failed(text: string): void {
    const note = this.#bubble("bot");
    note.classList.add("note");
    (note.querySelector(".body") as HTMLElement).textContent = text;
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
