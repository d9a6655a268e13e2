import type { Feature } from "../../bridge/feature.js";
import { listings } from "../listings/index.js";
import { ViewingDesk } from "./viewing-desk.js";
import { viewingStep } from "./viewing-step.js";

/**
 * "Book a viewing" from a listing card: the preferred time (understood in the chatbot's time zone), a way to reach
 * the user, then a mail to the agency with a calendar file (step `viewing`).
 */
export const viewings: Feature<undefined> = {
  name: "viewings",
  open(context) {
    const { store, config, outbox, log, transcript } = context;
    const desk = new ViewingDesk({ keyv: store.keyv, outbox, email: config.handoff.email, transcript, log });
    const { cardsOf } = context.use(listings);
    return { api: undefined, steps: { viewing: viewingStep(desk, cardsOf, config.handoff.keywords) } };
  },
};
