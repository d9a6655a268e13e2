import type { RequestHandler } from "express";
import { z } from "zod";
import {
  cardTapMessage,
  contactLink,
  type InboundMessage,
  type InboundSink,
  isContact,
  mlsOfCode,
} from "../../../src/plugin/plugin-api.js";
import type { WebChannel } from "../outbound.js";
import { VISITOR_FILE_ID, type VisitorFile, visitorMedia } from "../visitor-files.js";
import { visitorToken } from "../visitor-identity.js";
import type { VisitorLimits } from "../visitor-limits.js";
import type { WebChatAdmission } from "./admission.js";
import { parsedBody, serialNumber } from "./request-shape.js";

/** An e-mail address, or a phone number as people write it: 7 to 15 digits, a leading +, spaces, dots, dashes, (). */
const contactField = z.string().trim().max(254).refine(isContact, "must be an e-mail address or a phone number");

/** Files one message may carry: the photos one Image question takes (the chatbot API's limit). */
export const MAX_FILES_PER_MESSAGE = 10;

/**
 * A message the web chat posts. `chatbot` (the serial number the widget was given) is checked when present.
 * `contact` is how the team can reach the visitor, given with a request for a person: it becomes the user's handle
 * and link (mailto: or tel:), which the handoff mail shows and the lead records. `files` are ids of the visitor's
 * uploads (`POST /webchat/uploads`), sent in order with the text as their caption (which may then be empty).
 * `cardAction` is a tap on a listing card's button, its id as every channel carries it (`card:viewing:<MLS>`): the
 * message then reads as the tap (its text, if any, is not used).
 */
export const webChatMessage = z
  .object({
    visitorId: visitorToken,
    messageId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, - or _"),
    text: z.string().trim().max(4000).default(""),
    chatbot: serialNumber.optional(),
    contact: contactField.optional(),
    cardAction: z
      .string()
      .max(128)
      .transform((id, context) => {
        const tap = cardTapMessage(id);
        if (!tap) context.addIssue({ code: "custom", message: "must be a listing card's action, card:<action>:<MLS>" });
        return tap ?? z.NEVER;
      })
      .optional(),
    files: z
      .array(z.string().regex(VISITOR_FILE_ID, "must be a file id from POST /webchat/uploads"))
      .max(MAX_FILES_PER_MESSAGE, `must hold at most ${MAX_FILES_PER_MESSAGE} files`)
      .optional(),
  })
  .refine((message) => message.text !== "" || (message.files?.length ?? 0) > 0 || message.cardAction !== undefined, {
    path: ["text"],
    message: "must not be empty",
  });

/** The visitor as the handoff sees them: their contact, and a link that reaches it. */
function visitor(id: string, contact: string | undefined): InboundMessage["user"] {
  if (!contact) return { id };
  return { id, handle: contact, link: contactLink(contact) };
}

/**
 * `POST /webchat/messages`: a {@link webChatMessage} from a visitor who may send it (their token, their limit, their
 * consent), its files their own uploads of the last day; answered 202 at once, as the answer comes as events, and
 * 503 when the bridge is stopping or its store is out of reach (nothing was queued: the page may send again).
 */
export function messageRoute(
  admission: WebChatAdmission,
  channel: WebChannel,
  sink: InboundSink,
  limits: VisitorLimits,
): RequestHandler {
  return async (req, res) => {
    const message = parsedBody(webChatMessage, req, res);
    if (!message) return;
    const { visitorId: token, messageId, contact, cardAction } = message;
    const text = cardAction ? cardAction.text : message.text;
    if (!(await admission.chatbot(req, res, message.chatbot))) return;
    const id = admission.visitor(res, token);
    if (id === undefined || !(await limits.admit(req, res, "message", id))) return;
    if (!(await admission.consented(res, id))) return;
    const files: VisitorFile[] = [];
    for (const [index, fileId] of (message.files ?? []).entries()) {
      const file = await channel.files?.find(id, fileId);
      if (!file) {
        res.status(400).json({ error: `files.${index} is not a file this visitor uploaded in the last day` });
        return;
      }
      files.push(file);
    }
    const outcome = await sink
      .accept({
        channel: channel.name,
        botId: channel.botId,
        eventId: `${id}:${messageId}`,
        target: { chatId: id, isGroup: false },
        user: visitor(id, contact),
        text,
        media: files.map((file) => visitorMedia(id, file)),
        ...(cardAction && { button: cardAction.button }),
        receivedAt: new Date(),
      })
      // The store is unreachable: say so, so the page can offer to send again; nothing was queued.
      .catch(() => "unavailable" as const);
    if (outcome === "accepted") await remember(channel, id, messageId, text, contact, files);
    res.status(outcome === "stopping" || outcome === "unavailable" ? 503 : 202).json({ status: outcome });
  };
}

/**
 * Keeps an accepted message in the visitor's history, which a reload shows. Commands stay out of it, and so does a
 * listing's code sent alone (the opening of a listing's link by a widget from before it sent `/start <code>`); a
 * request for a person is kept with the contact given.
 */
async function remember(
  channel: WebChannel,
  id: string,
  messageId: string,
  text: string,
  contact: string | undefined,
  files: VisitorFile[],
): Promise<void> {
  const said =
    text === "/reset"
      ? "reset"
      : contact
        ? { text: `Asked for a person: ${contact}` }
        : { text, files: files.map((file) => file.kind) };
  const opening = mlsOfCode(text.trim()) !== undefined;
  if (said === "reset" || (!text.startsWith("/") && !opening) || contact) {
    // The message is taken whatever happens to its history: a failure here only means a reload will not show it.
    await channel.recordVisitor(id, messageId, said).catch(() => {});
  }
}
