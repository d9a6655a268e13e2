import type { SearchCriteria } from "./search-criteria.js";

/** The questions of the guided flow, in order; each is answered in one message. */
export type FlowStep = "city" | "saleType" | "minBeds" | "maxPrice";

/** A flow under way: the question waiting for its answer and the criteria answered so far. */
export interface FlowState {
  step: FlowStep;
  criteria: SearchCriteria;
}

/** A question as the user reads it, with the answers offered as buttons where the channel has them. */
export interface FlowQuestion {
  text: string;
  quickReplies: string[];
}

const QUESTIONS: Record<FlowStep, FlowQuestion> = {
  city: { text: 'Which city? (or "any")', quickReplies: ["Any"] },
  saleType: { text: 'For sale or for rent? (or "any")', quickReplies: ["For sale", "For rent", "Any"] },
  minBeds: { text: 'At least how many bedrooms? (a number, or "any")', quickReplies: ["1", "2", "3", "Any"] },
  maxPrice: { text: 'Highest price? (e.g. 600k, or "any")', quickReplies: ["Any"] },
};

const ORDER: FlowStep[] = ["city", "saleType", "minBeds", "maxPrice"];

/** The question asked at `step`. */
export function questionOf(step: FlowStep): FlowQuestion {
  return QUESTIONS[step];
}

/** The flow's first state, with what is known already (the property type a sentence named). */
export function startFlow(known: SearchCriteria = {}): FlowState {
  return { step: "city", criteria: { ...known } };
}

/** What an answer did: the next state, the finished criteria, or a refusal (the same question is asked again). */
export type FlowOutcome =
  | { kind: "next"; state: FlowState }
  | { kind: "done"; criteria: SearchCriteria }
  | { kind: "invalid"; hint: string };

const isAny = (answer: string) => /^(any|anything|no matter|-)$/i.test(answer);

/** "600k", "1.2m", "$600,000", "600000" as a number; undefined when it is none of these. */
function priceIn(answer: string): number | undefined {
  const written = /^\$?\s*([\d.,]+)\s*([km])?$/i.exec(answer.replace(/\s+/g, " ").trim());
  if (!written) return undefined;
  const value = Number(written[1]?.replace(/,/g, ""));
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const unit = written[2]?.toLowerCase();
  return Math.round(value * (unit === "k" ? 1_000 : unit === "m" ? 1_000_000 : 1));
}

/** Takes the answer to the waiting question. */
export function answerFlow(state: FlowState, text: string): FlowOutcome {
  const answer = text.trim();
  const criteria = { ...state.criteria };
  if (!isAny(answer)) {
    switch (state.step) {
      case "city":
        if (answer === "" || answer.length > 80) return { kind: "invalid", hint: "Please write the city's name." };
        criteria.city = answer;
        break;
      case "saleType":
        if (/rent/i.test(answer)) criteria.saleType = "for_rent";
        else if (/sale|buy/i.test(answer)) criteria.saleType = "for_sale";
        else return { kind: "invalid", hint: 'Please answer "for sale", "for rent" or "any".' };
        break;
      case "minBeds": {
        const beds = /^\d{1,2}$/.test(answer) ? Number(answer) : Number.NaN;
        if (Number.isNaN(beds)) return { kind: "invalid", hint: 'Please answer with a number, or "any".' };
        criteria.minBeds = beds;
        break;
      }
      case "maxPrice": {
        const price = priceIn(answer);
        if (price === undefined) return { kind: "invalid", hint: 'Please answer with a price such as 600k, or "any".' };
        criteria.maxPrice = price;
        break;
      }
    }
  }
  const next = ORDER[ORDER.indexOf(state.step) + 1];
  return next ? { kind: "next", state: { step: next, criteria } } : { kind: "done", criteria };
}
