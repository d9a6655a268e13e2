import type { z } from "zod";
import { askSchema } from "./requests/chat.js";
import { addChatbotSchema, chatbotRefSchema, editChatbotSchema, historySchema } from "./requests/chatbot.js";
import { confirmUploadSchema, noFieldsSchema, preUploadSchema } from "./requests/files.js";
import { leadAddSchema, leadListSchema } from "./requests/lead.js";
import {
  createListingSchema,
  deleteListingsSchema,
  listListingsSchema,
  updateListingSchema,
} from "./requests/listing.js";
import { ignored } from "./responses/lenient.js";
import {
  answerResponse,
  chatbotAddedResponse,
  chatbotResponse,
  historyResponse,
  leadAddedResponse,
  leadListResponse,
  listingCreatedResponse,
  listingPageResponse,
  listingsDeletedResponse,
  listingsUpdatedResponse,
  modelListResponse,
  preUploadResponse,
  sessionResponse,
} from "./responses/responses.js";

/** Where the API's paths begin: the self-hosted server's router is mounted here. */
export const API_ROOT = "/chat";

/** A workspace key: the secret key in `Authorization`, the session key in `chatrobot-sessionkey`. */
export type ApiKey = "secret" | "session";

/**
 * One operation of the chatbot API: the client builds its calls from it, the self-hosted server its routes.
 * The request schema validates the body the server receives (field names matched in any case by the server);
 * the response schema reads the envelope's `Data` the client receives.
 */
export interface ApiOperation<Request extends z.ZodObject = z.ZodObject, Response extends z.ZodType = z.ZodType> {
  /** Name used in errors and logs, e.g. `ClientAsk`. */
  readonly name: string;
  readonly method: "GET" | "POST";
  /** From the API's root, e.g. `/chat/Chat/ClientAsk`. */
  readonly path: string;
  /** The keys the API accepts, any one of them being enough; the self-hosted server enforces exactly these. */
  readonly accepts: readonly ApiKey[];
  /**
   * The keys the client sends: the one the hosted platform's docs name, or `every` configured one where they
   * contradict themselves (their header table says the secret key, their samples send the session key).
   */
  readonly sends: ApiKey | "every";
  /** Whether a retry is safe after any transient failure (reads); writes are repeated only when never sent. */
  readonly retrySafe: boolean;
  readonly request: Request;
  readonly response: Response;
}

/** The body an operation takes, as a caller writes it. */
export type RequestOf<Operation extends ApiOperation> = z.input<Operation["request"]>;

const operation = <Request extends z.ZodObject, Response extends z.ZodType>(row: ApiOperation<Request, Response>) =>
  row;

/**
 * Every operation, one row each. Spec operations (`docs/chatbot-api.md`) and the hosted platform's, plus the
 * self-hosted server's extensions Get and LeadAdd. The upload's PUT is not here: its URL is whatever
 * GetPreUploadUrl answers (on the hosted platform, another host), and the token in it is the credential.
 */
export const OPERATIONS = {
  editChatbot: operation({
    name: "Edit",
    method: "POST",
    path: "/chat/Chatbot/Edit",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: editChatbotSchema,
    response: ignored,
  }),
  ask: operation({
    name: "ClientAsk",
    method: "POST",
    path: "/chat/Chat/ClientAsk",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: askSchema,
    response: answerResponse,
  }),
  getSession: operation({
    name: "GetSession",
    method: "POST",
    path: "/chat/Chatbot/GetSession",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: chatbotRefSchema,
    response: sessionResponse,
  }),
  createListing: operation({
    name: "RealEstateCreate",
    method: "POST",
    path: "/chat/Chatbot/RealEstateCreate",
    accepts: ["secret", "session"],
    sends: "every",
    retrySafe: false,
    request: createListingSchema,
    response: listingCreatedResponse,
  }),
  updateListing: operation({
    name: "RealEstateUpdate",
    method: "POST",
    path: "/chat/Chatbot/RealEstateUpdate",
    accepts: ["secret", "session"],
    sends: "every",
    retrySafe: false,
    request: updateListingSchema,
    response: listingsUpdatedResponse,
  }),
  listListings: operation({
    name: "RealEstateList",
    method: "POST",
    path: "/chat/Chatbot/RealEstateList",
    accepts: ["session"],
    sends: "session",
    retrySafe: true,
    request: listListingsSchema,
    response: listingPageResponse,
  }),
  deleteListings: operation({
    name: "RealEstateDelete",
    method: "POST",
    path: "/chat/Chatbot/RealEstateDelete",
    accepts: ["secret", "session"],
    sends: "every",
    retrySafe: false,
    request: deleteListingsSchema,
    response: listingsDeletedResponse,
  }),
  listModels: operation({
    name: "ModelList",
    method: "GET",
    path: "/chat/Chatbot/ModelList",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: true,
    request: noFieldsSchema,
    response: modelListResponse,
  }),
  addChatbot: operation({
    name: "Add",
    method: "POST",
    path: "/chat/Chatbot/Add",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: addChatbotSchema,
    response: chatbotAddedResponse,
  }),
  removeChatbot: operation({
    name: "Remove",
    method: "POST",
    path: "/chat/Chatbot/Remove",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: chatbotRefSchema,
    response: ignored,
  }),
  getChatbot: operation({
    name: "Get",
    method: "POST",
    path: "/chat/Chatbot/Get",
    // The web chat reads a chatbot's greeting with the session key; the bridge uses the secret key.
    accepts: ["secret", "session"],
    sends: "secret",
    retrySafe: true,
    request: chatbotRefSchema,
    response: chatbotResponse,
  }),
  chatHistory: operation({
    name: "ChatContentHistory",
    method: "POST",
    path: "/chat/Chatbot/ChatContentHistory",
    // The hosted docs' samples send the session key here, their header table the secret key: both are accepted.
    accepts: ["secret", "session"],
    sends: "secret",
    retrySafe: true,
    request: historySchema,
    response: historyResponse,
  }),
  listLeads: operation({
    name: "LeadList",
    method: "POST",
    path: "/chat/Chatbot/LeadList",
    accepts: ["secret", "session"],
    sends: "secret",
    retrySafe: true,
    request: leadListSchema,
    response: leadListResponse,
  }),
  addLead: operation({
    name: "LeadAdd",
    method: "POST",
    path: "/chat/Chatbot/LeadAdd",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: leadAddSchema,
    response: leadAddedResponse,
  }),
  preUpload: operation({
    name: "GetPreUploadUrl",
    method: "POST",
    path: "/chat/User/GetPreUploadUrl",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: preUploadSchema,
    response: preUploadResponse,
  }),
  confirmUpload: operation({
    name: "UploadSuccess",
    method: "POST",
    path: "/chat/User/UploadSuccess",
    accepts: ["secret"],
    sends: "secret",
    retrySafe: false,
    request: confirmUploadSchema,
    response: ignored,
  }),
} as const;

/** The name of a row of {@link OPERATIONS}. */
export type OperationKey = keyof typeof OPERATIONS;
