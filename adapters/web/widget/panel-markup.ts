import { composerMarkup } from "./composer.js";
import { contactFormMarkup } from "./contact-form.js";
import { CHAT_ICON, CLOSE_ICON, NEW_ICON, PERSON_ICON, SOCIAL_ICONS } from "./icons.js";
import type { WidgetSettings } from "./protocol.js";

/** How the widget is shown: a launcher bubble opening a panel on any page, or the whole page at chatbridge's `/`. */
export type WidgetMode = "bubble" | "page";

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The avatar without a picture: the first letter of the chatbot's name. */
export const letterAvatar = (name: string) =>
  `<span class="avatar" aria-hidden="true">${html(name.slice(0, 1).toUpperCase())}</span>`;

/**
 * The widget's markup from the chatbot's settings: the launcher (none on the full page), the panel's header
 * (avatar, name, social links, a person, new conversation, close), the log and its live region, the chips, the
 * privacy notice, the contact form and the compose area. Every value from the settings is escaped.
 */
export function panelMarkup(settings: WidgetSettings, mode: WidgetMode): string {
  const { name, avatarUrl, iconUrl, social, privacy } = settings;
  const avatar = avatarUrl ? `<img class="avatar" src="${html(avatarUrl)}" alt="">` : letterAvatar(name);
  const links = (Object.keys(SOCIAL_ICONS) as (keyof typeof SOCIAL_ICONS)[])
    .filter((network) => social[network])
    .map(
      (network) =>
        `<a class="social" href="${html(social[network] as string)}" target="_blank" rel="noopener noreferrer" aria-label="${html(name)} on ${network[0]?.toUpperCase()}${network.slice(1)}">${SOCIAL_ICONS[network]}</a>`,
    )
    .join("");
  const launcher =
    mode === "page"
      ? ""
      : `<button class="launcher" type="button" aria-label="Chat with ${html(name)}" aria-expanded="false" aria-controls="chatbridge-panel">${
          iconUrl ? `<img src="${html(iconUrl)}" alt="">` : CHAT_ICON
        }</button>`;
  const notice = privacy
    ? `<div class="privacy" role="region" aria-label="${html(privacy.name)}"><p><strong>${html(privacy.name)}</strong>${
        privacy.description ? ` — ${html(privacy.description)}` : ""
      }${
        privacy.url ? ` <a href="${html(privacy.url)}" target="_blank" rel="noopener noreferrer">Read it</a>` : ""
      }</p><button type="button" class="consent">I agree</button><p class="error" role="alert"></p></div>`
    : "";
  return `${launcher}
<section class="panel" id="chatbridge-panel" ${mode === "page" ? "" : 'role="dialog" hidden'} aria-label="${html(name)}">
<header>${avatar}<h2>${html(name)}</h2>${links}
  ${
    settings.handoff
      ? `<button type="button" class="human" aria-label="Talk to a person" title="Talk to a person" aria-controls="chatbridge-contact-form">${PERSON_ICON}</button>`
      : ""
  }
  <button type="button" class="reset" aria-label="New conversation" title="New conversation">${NEW_ICON}</button>
  ${mode === "page" ? "" : `<button type="button" class="close" aria-label="Close chat" title="Close">${CLOSE_ICON}</button>`}
</header>
<div class="log" role="log" aria-live="off" aria-label="Conversation with ${html(name)}"></div>
<div class="announcer sr-only" aria-live="polite" aria-atomic="true"></div>
<div class="typing" aria-hidden="true"></div>
<div class="chips"></div>
${notice}
${settings.handoff ? contactFormMarkup() : ""}
${composerMarkup(settings)}
</section>`;
}
