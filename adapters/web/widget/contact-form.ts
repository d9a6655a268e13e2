/** An e-mail address, or a phone number of 7 to 15 digits: what the bridge accepts as a contact. */
function reachable(contact: string): boolean {
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return true;
  return /^\+?[\d\s().-]{7,20}$/.test(contact) && /^\d{7,15}$/.test(contact.replace(/\D/g, ""));
}

/** The form that asks the visitor how a person of the team can reach them, shown by the header's person button. */
export function contactFormMarkup(): string {
  return `<form class="contact" id="chatbridge-contact-form" hidden aria-label="Talk to a person" novalidate>
    <p>A person from our team will contact you. How can they reach you?</p>
    <label for="chatbridge-contact">E-mail or phone number</label>
    <input id="chatbridge-contact" autocomplete="email" maxlength="254" required>
    <p class="error" role="alert"></p>
    <div class="actions"><button type="submit">Send request</button><button type="button" class="cancel">Cancel</button></div>
  </form>`;
}

/**
 * "Talk to a person": the visitor leaves an e-mail address or a phone number (checked here as the bridge checks
 * it, with the reason said next to the field), then `request` sends the request with it, so the mail to the team
 * says how to reach them. Nothing happens where the widget offers no person (no button).
 */
export function wireContactForm(root: HTMLElement, request: (contact: string) => void): void {
  const button = root.querySelector<HTMLButtonElement>(".human");
  const form = root.querySelector<HTMLFormElement>("form.contact");
  const field = root.querySelector<HTMLInputElement>("#chatbridge-contact");
  const error = root.querySelector<HTMLElement>(".contact .error");
  if (!button || !form || !field || !error) return;
  button.addEventListener("click", () => {
    form.hidden = false;
    field.focus();
  });
  root.querySelector(".contact .cancel")?.addEventListener("click", () => {
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
    request(contact);
  });
}
