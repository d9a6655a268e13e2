import { z } from "zod";
import { calendarDay, daysInOrder, emailOrEmpty, phoneOrEmpty, serialNumber, text } from "./fields.js";
import { onceValid } from "./rules.js";

/**
 * The leads LeadAdd records: a request to talk to a person, to visit a listing, or a visit from a listing's link;
 * Contact leads are found by the server itself in users' questions.
 */
export const ADDABLE_LEAD_TYPES = ["Handoff", "Viewing", "ListingVisit"] as const;

const sessionID = z.number().int().min(1);

const leadListFields = z.object({
  serialNumber,
  startTime: calendarDay.optional(),
  endTime: calendarDay.optional(),
  sessionID: sessionID.optional(),
});

/** `/chat/Chatbot/LeadList`: dates in UTC, endTime included. */
export const leadListSchema = leadListFields.superRefine(
  daysInOrder("startTime", "endTime"),
  onceValid(leadListFields, ["startTime", "endTime"]),
);

/** `/chat/Chatbot/LeadAdd` (an extension of the self-hosted server): a request for a person or a viewing, or a visit. */
export const leadAddSchema = z.object({
  serialNumber,
  sessionID: sessionID.optional(),
  Type: z.enum(ADDABLE_LEAD_TYPES),
  Name: z.string().trim().max(200).default(""),
  Email: emailOrEmpty.default(""),
  Phone: phoneOrEmpty.default(""),
  Content: text(10_000).default(""),
});

export type LeadListInput = z.output<typeof leadListSchema>;
export type LeadAddInput = z.output<typeof leadAddSchema>;
