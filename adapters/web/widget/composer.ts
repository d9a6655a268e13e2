import { ATTACH_ICON, MIC_ICON } from "./icons.js";
import type { WidgetSettings } from "./protocol.js";
import { Recorder } from "./recorder.js";

/** What the visitor composed: a text (maybe empty) and the photos attached to it, in order. */
export interface Composed {
  text: string;
  photos: File[];
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The compose form's markup: attach, input, push-to-talk and send, as the chatbot's settings allow. */
export function composerMarkup(settings: WidgetSettings): string {
  const { images, voice } = settings.uploads;
  return `<div class="attachments" role="list" aria-label="Photos to send" hidden></div>
  <p class="compose-status" role="status" aria-live="polite"></p>
  <form class="compose"><label class="sr-only" for="chatbridge-input">Your message</label>
    ${
      images
        ? `<button type="button" class="attach icon" aria-label="Attach photos" title="Attach photos">${ATTACH_ICON}</button>
    <input type="file" class="picker" accept="image/*" multiple hidden tabindex="-1" aria-hidden="true">`
        : ""
    }
    <input id="chatbridge-input" autocomplete="off" maxlength="4000" placeholder="${html(settings.placeholder)}">
    ${
      voice
        ? `<button type="button" class="talk icon" aria-label="Hold to record a voice message" title="Hold to talk" aria-pressed="false">${MIC_ICON}</button>`
        : ""
    }
    <button type="submit">Send</button></form>`;
}

/**
 * The compose area: the text input; photos attached by the picker, by dropping them on the panel or by pasting
 * them, each previewed with a button to remove it (EnableUploadImage; checked here against the bridge's count and
 * size before any upload); and push-to-talk (EnablePushToTalk): held with the pointer, or with Space or Enter on
 * the button, recorded as WAV and sent on release.
 */
export class Composer {
  readonly #form: HTMLFormElement;
  readonly #input: HTMLInputElement;
  readonly #status: HTMLElement;
  readonly #previews: HTMLElement;
  readonly #photos: { file: File; url: string }[] = [];
  #recorder: Recorder | undefined;

  constructor(
    root: HTMLElement,
    private readonly settings: WidgetSettings,
    private readonly handlers: { submit: (composed: Composed) => void; voice: (wav: Blob) => void },
  ) {
    const find = <T extends HTMLElement>(selector: string) => root.querySelector(selector) as T | null;
    this.#form = find<HTMLFormElement>("form.compose") as HTMLFormElement;
    this.#input = find<HTMLInputElement>("#chatbridge-input") as HTMLInputElement;
    this.#status = find(".compose-status") as HTMLElement;
    this.#previews = find(".attachments") as HTMLElement;
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#submit();
    });
    if (settings.uploads.images) this.#wirePhotos(root, find);
    const talk = find<HTMLButtonElement>(".talk");
    if (talk && settings.uploads.voice) this.#wireTalk(talk);
  }

  get input(): HTMLInputElement {
    return this.#input;
  }

  /** Turns every control of the form on or off (the privacy notice not yet accepted, a limit reached). */
  setEnabled(enabled: boolean): void {
    for (const control of this.#form.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button")) {
      control.disabled = !enabled;
    }
  }

  /** Says something about the compose area (a refused photo, the recording's progress), or clears it. */
  say(text: string): void {
    this.#status.textContent = text;
  }

  #submit(): void {
    const text = this.#input.value.trim();
    if (!text && this.#photos.length === 0) return;
    const photos = this.#photos.splice(0).map(({ file, url }) => {
      URL.revokeObjectURL(url);
      return file;
    });
    this.#renderPreviews();
    this.#input.value = "";
    this.say("");
    this.handlers.submit({ text, photos });
  }

  #wirePhotos(root: HTMLElement, find: <T extends HTMLElement>(selector: string) => T | null): void {
    const picker = find<HTMLInputElement>(".picker") as HTMLInputElement;
    find(".attach")?.addEventListener("click", () => picker.click());
    picker.addEventListener("change", () => {
      this.#attach([...(picker.files ?? [])]);
      picker.value = "";
    });
    const panel = find(".panel") ?? root;
    panel.addEventListener("dragover", (event) => {
      if (!event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      panel.classList.add("dropping");
    });
    panel.addEventListener("dragleave", () => panel.classList.remove("dropping"));
    panel.addEventListener("drop", (event) => {
      event.preventDefault();
      panel.classList.remove("dropping");
      this.#attach([...(event.dataTransfer?.files ?? [])]);
    });
    this.#input.addEventListener("paste", (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      this.#attach(files);
    });
  }

  /** Adds what can be sent of `files`, and says why the rest was left out. */
  #attach(files: File[]): void {
    const { maxFiles, maxBytes } = this.settings.uploads;
    const problems = new Set<string>();
    for (const file of files) {
      if (!file.type.startsWith("image/")) problems.add("Only photos can be attached.");
      else if (file.size > maxBytes) problems.add(`Each photo must be under ${Math.floor(maxBytes / 1048576)} MB.`);
      else if (this.#photos.length >= maxFiles) problems.add(`At most ${maxFiles} photos go in one message.`);
      else this.#photos.push({ file, url: URL.createObjectURL(file) });
    }
    this.say([...problems].join(" "));
    this.#renderPreviews();
    this.#input.focus();
  }

  #renderPreviews(): void {
    this.#previews.hidden = this.#photos.length === 0;
    this.#previews.replaceChildren(
      ...this.#photos.map(({ file, url }, index) => {
        const item = document.createElement("div");
        item.className = "preview";
        item.setAttribute("role", "listitem");
        const image = document.createElement("img");
        image.src = url;
        image.alt = `Photo ${index + 1}: ${file.name}`;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "remove";
        remove.textContent = "×";
        remove.setAttribute("aria-label", `Remove photo ${index + 1}`);
        remove.addEventListener("click", () => {
          const [gone] = this.#photos.splice(index, 1);
          if (gone) URL.revokeObjectURL(gone.url);
          this.#renderPreviews();
          this.#input.focus();
        });
        item.append(image, remove);
        return item;
      }),
    );
  }

  /** Hold to talk: press starts, release sends; leaving the button or losing focus sends what was recorded. */
  #wireTalk(button: HTMLButtonElement): void {
    const recorder = new Recorder(this.settings.uploads.maxVoiceSeconds, () => void release());
    this.#recorder = recorder;
    let ticking: ReturnType<typeof setInterval> | undefined;
    let pressed = false;
    const press = async () => {
      if (pressed || button.disabled) return;
      pressed = true;
      button.setAttribute("aria-pressed", "true");
      try {
        await recorder.start();
      } catch {
        pressed = false;
        button.setAttribute("aria-pressed", "false");
        this.say("The microphone is not available: allow it in the browser to send voice messages.");
        return;
      }
      // Released while the browser was still starting the microphone.
      if (!pressed) return void release(true);
      const show = () => this.say(`Recording… ${clock(recorder.seconds)}. Release to send.`);
      show();
      ticking = setInterval(show, 250);
    };
    const release = async (force = false) => {
      if (!pressed && !force) return;
      pressed = false;
      clearInterval(ticking);
      button.setAttribute("aria-pressed", "false");
      if (!recorder.recording) return;
      const recording = await recorder.stop();
      // Under half a second is a tap, not a message.
      if (!recording || recording.size < 44 + 16_000) {
        this.say("Hold the button while you speak, then release it to send.");
        return;
      }
      this.say("");
      this.handlers.voice(recording);
    };
    button.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      button.setPointerCapture(event.pointerId);
      void press();
    });
    button.addEventListener("pointerup", () => void release());
    button.addEventListener("pointercancel", () => void release());
    button.addEventListener("keydown", (event) => {
      if ((event.key === " " || event.key === "Enter") && !event.repeat) {
        event.preventDefault();
        void press();
      }
    });
    button.addEventListener("keyup", (event) => {
      if (event.key === " " || event.key === "Enter") void release();
    });
    button.addEventListener("blur", () => void release());
  }

  /** Stops a recording under way without sending it (the panel closed). */
  async cancel(): Promise<void> {
    if (this.#recorder?.recording) await this.#recorder.stop();
  }
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;
