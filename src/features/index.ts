import { type AnswerSteps, stepOf } from "../bridge/feature.js";
import { ask } from "../bridge/steps/ask.js";
import { commands, reset } from "../bridge/steps/bridge-commands.js";
import { firstContact } from "../bridge/steps/first-contact.js";
import { alerts } from "./alerts/index.js";
import { handoff } from "./handoff/index.js";
import { listings } from "./listings/index.js";
import { viewings } from "./viewings/index.js";

/**
 * The answer's steps, in the order they run: the product's rules for a user's message. Each step answers the
 * messages or leaves them to the next; the last asks the chatbot. A feature is one folder of src/features/ and its
 * steps' lines here.
 */
export const ANSWER_STEPS: AnswerSteps = {
  answer: [
    // Is this a first contact? The greeting goes first.
    firstContact,
    // /reset starts a new session.
    reset,
    // A tap on "Book a viewing", and the answers to its questions.
    stepOf(viewings, "viewing"),
    // A conversation opened from a listing's link starts with its card.
    stepOf(listings, "listing-link"),
    // /start and /reset get the greeting.
    commands,
    // /alert, /alerts, /stop, and "notify me about new homes in Austin".
    stepOf(alerts, "alerts"),
    // A tap on a card's "Similar homes" is asked as the question it stands for.
    stepOf(listings, "card-questions"),
    // "Talk to a human"; while a person has the conversation, everything goes to them.
    stepOf(handoff, "handoff"),
    // Everything else is asked to the chatbot, and streamed back.
    ask,
  ],
  afterAnswer: [
    // The listings the answer names, as cards.
    stepOf(listings, "cards"),
    // The transcript; after answers the chatbot had none for, the offer of a person.
    stepOf(handoff, "answered"),
  ],
};

export { handoff } from "./handoff/index.js";
