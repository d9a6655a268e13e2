import type { LeadAddInput, LeadListInput } from "../../api/requests/lead.js";
import type { LeadItem } from "../../api/types.js";
import type { Chatbot, ChatSession, Lead } from "../domain.js";
import { ApiError } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";
import { findContactDetails } from "./contact-details.js";
import { utcDays } from "./utc-days.js";

/** A lead as LeadList shows it: Email and Phone only when known. */
export function toLeadItem(lead: Lead): LeadItem {
  return {
    Type: lead.type,
    Name: lead.name,
    ...(lead.email ? { Email: lead.email } : {}),
    ...(lead.phone ? { Phone: lead.phone } : {}),
    Content: lead.content,
    SessionID: lead.sessionId,
    CreateTime: lead.createdAt.toISOString(),
  };
}

/**
 * A chatbot's leads: handoff requests the bridge records (LeadAdd), and the e-mail addresses and phone numbers
 * users write to the chatbot, recorded as Contact leads — one per address or number and session, whose
 * Content is the question it was found in.
 */
export class LeadService {
  constructor(private readonly store: ApiStore) {}

  /** Records the contact details of a user's question that its session has not recorded yet. */
  async recordContacts(session: ChatSession, question: string): Promise<void> {
    for (const detail of findContactDetails(question)) {
      await this.store.leads.addContact(
        {
          chatbotId: session.chatbotId,
          sessionId: session.id,
          type: "Contact",
          name: "",
          email: detail.kind === "email" ? detail.value : "",
          phone: detail.kind === "phone" ? detail.value : "",
          content: question,
        },
        `${detail.kind}:${detail.key}`,
      );
    }
  }

  /** LeadAdd: a handoff request, in one of the chatbot's sessions when `sessionID` is given. */
  async add(chatbot: Chatbot, input: Omit<LeadAddInput, "serialNumber">): Promise<LeadItem> {
    if (input.sessionID !== undefined) {
      const session = await this.store.sessions.byId(input.sessionID);
      if (session?.chatbotId !== chatbot.id) {
        throw new ApiError(404, `Session ${input.sessionID} not found in chatbot ${chatbot.serialNumber}`);
      }
    }
    const lead = await this.store.leads.add({
      chatbotId: chatbot.id,
      sessionId: input.sessionID ?? null,
      type: input.Type,
      name: input.Name,
      email: input.Email,
      phone: input.Phone,
      content: input.Content,
    });
    return toLeadItem(lead);
  }

  /** LeadList: whole UTC days, endTime included, oldest first. */
  async list(chatbot: Chatbot, query: Omit<LeadListInput, "serialNumber">): Promise<LeadItem[]> {
    const range = utcDays(query.startTime, query.endTime);
    const leads = await this.store.leads.list(chatbot.id, { ...range, sessionId: query.sessionID });
    return leads.map(toLeadItem);
  }
}
