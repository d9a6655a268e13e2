import { phraseLanguage } from "../../bridge/phrase-language.js";

/** What the bot says about handoffs, in one language. */
export interface HandoffTexts {
  /** The mail could only be queued (the SMTP server is down): it will go out, a person will reply. */
  delayed: string;
  /** The queued mail was given up in the end (refused for good, or still failing days later): no person, the bot is back. */
  undelivered: string;
  /** The mail was refused for good or could not be stored: no person now, the bot stays. */
  failed: string;
  /** No SMTP server or no address is configured. */
  unavailable: string;
  /** The conversation is back with the bot. */
  botBack: string;
  /** Offered with the button after an answer the chatbot did not have. */
  offer: string;
  /** The button's label; tapping it sends this text. */
  button: string;
}

const ENGLISH: HandoffTexts = {
  delayed:
    "I couldn't reach the team right away, but your request is saved and will be sent as soon as possible: a person will reply here.",
  undelivered:
    "Sorry, your request couldn't be delivered to the team after all, so no one will reply here. You're talking to the assistant again; please ask for a person later if you still need one.",
  failed: "Sorry, I couldn't reach a person right now. Please try again later; I'm still here to help meanwhile.",
  unavailable: "Sorry, I can't put you in touch with a person from here. I'm still here to help.",
  botBack: "You're talking to the assistant again.",
  offer: "I couldn't answer that. Would you like to talk to a person?",
  button: "Talk to a human",
};

const SPANISH: HandoffTexts = {
  delayed:
    "No pude contactar al equipo enseguida, pero tu solicitud quedó guardada y se enviará lo antes posible: una persona te responderá aquí.",
  undelivered:
    "Lo siento, al final no se pudo entregar tu solicitud al equipo, así que nadie te responderá aquí. Vuelves a hablar con el asistente; pide una persona más tarde si aún la necesitas.",
  failed:
    "Lo siento, ahora no puedo contactar a una persona. Inténtalo más tarde; mientras tanto sigo aquí para ayudarte.",
  unavailable: "Lo siento, desde aquí no puedo ponerte en contacto con una persona. Sigo aquí para ayudarte.",
  botBack: "Vuelves a hablar con el asistente.",
  offer: "No supe responder eso. ¿Quieres hablar con una persona?",
  button: "Hablar con una persona",
};

/** Every button label, whatever the language it was offered in: a tap is a request in any case. */
export const HANDOFF_BUTTONS = [ENGLISH.button, SPANISH.button];

/**
 * The texts in the chatbot's AIResponseLanguage (a full language name, as the settings hold it): Spanish, like the
 * embedded engine, or English for anything else. Only the operator's own texts (TalkToHumanResponseMessage,
 * HANDOFF_MESSAGE) come in every language.
 */
export function handoffTexts(language: string | undefined): HandoffTexts {
  return phraseLanguage(language) === "es" ? SPANISH : ENGLISH;
}
