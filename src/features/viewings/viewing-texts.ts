import { type PhraseLanguage, phraseLanguage } from "../../bridge/phrase-language.js";

/** What the bot says in the viewing flow, in one language (the flow's words are the bridge's, not the chatbot's). */
export interface ViewingTexts {
  /** The question a tap on "Book a viewing" asks. */
  askTime: (place: string) => string;
  /** Asked when the channel gives no way to reach the user (a web chat visitor). */
  askContact: string;
  /** The answer to the contact question was neither. */
  contactAgain: string;
  /** The mail was accepted by the mail server. */
  sent: (when: string) => string;
  /** The mail could only be queued: it will go out, but has not yet. */
  queued: (when: string) => string;
  /** No mail server or no address, or the mail was refused: nobody will hear of the request. */
  unreachable: string;
  /** The user left the flow with "cancel". */
  cancelled: string;
}

/** The flow's words in English: the language of any chatbot without a table of its own. */
export const VIEWING_TEXTS: ViewingTexts = {
  askTime: (place) => `When would you like to visit ${place}? For example: Saturday morning, or 12 May at 10:00.`,
  askContact: "How can the agency reach you to confirm the viewing? Please write your e-mail address or phone number.",
  contactAgain: 'That doesn\'t look like an e-mail address or a phone number. Please write one, or "cancel" to stop.',
  sent: (when) => `Thanks! I've passed your request for ${when} to the agency; they will confirm with you.`,
  queued: (when) =>
    `Thanks! I couldn't reach the agency right away, but your request for ${when} is saved and will be sent as soon as possible; they will confirm with you.`,
  unreachable:
    "Sorry, I couldn't pass your request on: no one at the agency can be reached from here right now. Please try again later or contact the agency directly.",
  cancelled: "OK, I've cancelled the viewing request.",
};

const SPANISH: ViewingTexts = {
  askTime: (place) =>
    `¿Cuándo te gustaría visitar ${place}? Por ejemplo: el sábado por la mañana, o el 12 de mayo a las 10:00.`,
  askContact:
    "¿Cómo puede contactarte la agencia para confirmar la visita? Escribe tu correo electrónico o tu número de teléfono.",
  contactAgain: 'Eso no parece un correo electrónico ni un número de teléfono. Escribe uno, o "cancelar" para dejarlo.',
  sent: (when) => `¡Gracias! He pasado tu solicitud para ${when} a la agencia; te confirmarán la visita.`,
  queued: (when) =>
    `¡Gracias! No pude contactar a la agencia enseguida, pero tu solicitud para ${when} quedó guardada y se enviará lo antes posible; te confirmarán la visita.`,
  unreachable:
    "Lo siento, no pude pasar tu solicitud: ahora mismo no se puede contactar a nadie de la agencia desde aquí. Inténtalo más tarde o contacta directamente con la agencia.",
  cancelled: "De acuerdo, he cancelado la solicitud de visita.",
};

const TABLES: Record<PhraseLanguage, ViewingTexts> = { en: VIEWING_TEXTS, es: SPANISH };

/** The flow's words in the chatbot's AIResponseLanguage: Spanish or English (any other language). */
export function viewingTexts(language: string | undefined): ViewingTexts {
  return TABLES[phraseLanguage(language)];
}
