import type { RequestLanguage } from "../../real-estate/alert-request.js";
import type { SearchCriteria } from "./search-criteria.js";

/** The questions of the guided flow, in order; each is answered in one message. */
export type FlowStep = "city" | "saleType" | "minBeds" | "maxPrice";

/**
 * A flow under way: the question waiting for its answer, the criteria answered so far, and the language it speaks
 * (the chatbot's when it started; English for a flow saved before flows had one).
 */
export interface FlowState {
  step: FlowStep;
  criteria: SearchCriteria;
  language?: RequestLanguage | undefined;
}

/** A question as the user reads it, with the answers offered as buttons where the channel has them. */
export interface FlowQuestion {
  text: string;
  quickReplies: string[];
}

const QUESTIONS: Record<RequestLanguage, Record<FlowStep, FlowQuestion>> = {
  en: {
    city: { text: 'Which city? (or "any")', quickReplies: ["Any"] },
    saleType: { text: 'For sale or for rent? (or "any")', quickReplies: ["For sale", "For rent", "Any"] },
    minBeds: { text: 'At least how many bedrooms? (a number, or "any")', quickReplies: ["1", "2", "3", "Any"] },
    maxPrice: { text: 'Highest price? (e.g. 600k, or "any")', quickReplies: ["Any"] },
  },
  es: {
    city: { text: '¿En qué ciudad? (o "cualquiera")', quickReplies: ["Cualquiera"] },
    saleType: {
      text: '¿En venta o en alquiler? (o "cualquiera")',
      quickReplies: ["En venta", "En alquiler", "Cualquiera"],
    },
    minBeds: {
      text: '¿Cuántas habitaciones como mínimo? (un número, o "cualquiera")',
      quickReplies: ["1", "2", "3", "Cualquiera"],
    },
    maxPrice: { text: '¿Precio máximo? (p. ej. 600k, o "cualquiera")', quickReplies: ["Cualquiera"] },
  },
};

/** Why an answer was not taken, before the question is asked again. */
const HINTS: Record<RequestLanguage, Record<FlowStep, string>> = {
  en: {
    city: "Please write the city's name.",
    saleType: 'Please answer "for sale", "for rent" or "any".',
    minBeds: 'Please answer with a number, or "any".',
    maxPrice: 'Please answer with a price such as 600k, or "any".',
  },
  es: {
    city: "Escribe el nombre de la ciudad, por favor.",
    saleType: 'Responde "en venta", "en alquiler" o "cualquiera", por favor.',
    minBeds: 'Responde con un número, o "cualquiera", por favor.',
    maxPrice: 'Responde con un precio como 600k, o "cualquiera", por favor.',
  },
};

const ORDER: FlowStep[] = ["city", "saleType", "minBeds", "maxPrice"];

/** The question asked at `step`, in `language`. */
export function questionOf(step: FlowStep, language: RequestLanguage = "en"): FlowQuestion {
  return QUESTIONS[language][step];
}

/** The flow's first state, with what is known already (the property type a sentence named), speaking `language`. */
export function startFlow(known: SearchCriteria = {}, language: RequestLanguage = "en"): FlowState {
  return { step: "city", criteria: { ...known }, language };
}

/** What an answer did: the next state, the finished criteria, or a refusal (the same question is asked again). */
export type FlowOutcome =
  | { kind: "next"; state: FlowState }
  | { kind: "done"; criteria: SearchCriteria }
  | { kind: "invalid"; hint: string };

/** "Any" in either language, whatever the flow speaks: the buttons' words, and a few ways of saying it. */
const isAny = (answer: string) =>
  /^(any|anything|no matter|-|cualquiera|cualquier|da igual|no importa|lo que sea)$/i.test(answer);

/**
 * "600k", "1.2m", "$600,000", "600000", and in Spanish "600 mil", "1.5 millones" as a number; undefined when it is
 * none of these.
 */
function priceIn(answer: string): number | undefined {
  const written = /^\$?\s*([\d.,]+)\s*(k|m|mil|mill[oó]n(?:es)?)?$/i.exec(answer.replace(/\s+/g, " ").trim());
  if (!written) return undefined;
  const value = Number(written[1]?.replace(/,/g, ""));
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const unit = written[2]?.toLowerCase();
  const times = unit === "k" || unit === "mil" ? 1_000 : unit === "m" || unit?.startsWith("mill") ? 1_000_000 : 1;
  return Math.round(value * times);
}

/** Takes the answer to the waiting question (in English or Spanish, whatever the flow speaks). */
export function answerFlow(state: FlowState, text: string): FlowOutcome {
  const answer = text.trim();
  const criteria = { ...state.criteria };
  const language = state.language ?? "en";
  const invalid = (): FlowOutcome => ({ kind: "invalid", hint: HINTS[language][state.step] });
  if (!isAny(answer)) {
    switch (state.step) {
      case "city":
        if (answer === "" || answer.length > 80) return invalid();
        criteria.city = answer;
        break;
      case "saleType":
        if (/rent|renta|alquil|arrend/i.test(answer)) criteria.saleType = "for_rent";
        else if (/sale|buy|venta|compra/i.test(answer)) criteria.saleType = "for_sale";
        else return invalid();
        break;
      case "minBeds": {
        const beds = /^\d{1,2}$/.test(answer) ? Number(answer) : Number.NaN;
        if (Number.isNaN(beds)) return invalid();
        criteria.minBeds = beds;
        break;
      }
      case "maxPrice": {
        const price = priceIn(answer);
        if (price === undefined) return invalid();
        criteria.maxPrice = price;
        break;
      }
    }
  }
  const next = ORDER[ORDER.indexOf(state.step) + 1];
  return next ? { kind: "next", state: { step: next, criteria, language } } : { kind: "done", criteria };
}
