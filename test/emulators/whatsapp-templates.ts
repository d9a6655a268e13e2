import { messagingError } from "./whatsapp-errors.js";
import type { OutgoingTemplate } from "./whatsapp-outgoing.js";

/** An approved message template as the emulator knows it: its name, language and number of body variables. */
export interface EmulatedTemplate {
  name: string;
  /** The language code it was approved in, e.g. "en_US". */
  language: string;
  /** How many variables ({{1}}, {{2}}…) its body has. */
  bodyParameters: number;
}

/**
 * The approved templates of the emulated business account, and Meta's checks of a template send against them: an
 * unknown name or language (132001), a wrong number of body variables (132000), a variable with a newline, a tab
 * or more than four spaces in a row (132018).
 */
export class WhatsAppTemplates {
  readonly #templates = new Map<string, EmulatedTemplate>();

  add(template: EmulatedTemplate): void {
    this.#templates.set(`${template.name}:${template.language}`, template);
  }

  /** Throws the Graph error Meta answers for a send of `sent`, if any. */
  check(sent: OutgoingTemplate): void {
    const template = this.#templates.get(`${sent.name}:${sent.language}`);
    if (!template) {
      throw messagingError(
        132001,
        "Template name does not exist in the translation",
        `template name (${sent.name}) does not exist in ${sent.language}`,
      );
    }
    if (sent.parameters.length !== template.bodyParameters) {
      throw messagingError(
        132000,
        "Number of parameters does not match the expected number of params",
        `body: number of localizable_params (${sent.parameters.length}) does not match the expected number of params (${template.bodyParameters})`,
      );
    }
    if (sent.parameters.some((text) => /[\n\t]| {5}/.test(text))) {
      throw messagingError(
        132018,
        "There was an issue with the parameters in your template.",
        "Param text cannot have new-line/tab characters or more than 4 consecutive spaces",
      );
    }
  }
}
