import { z } from "zod";
import type { ChatbotSettings, HistorySession, LeadItem, ListingListItem } from "../types.js";
import { anObject, anyCase, arrayOf, integerLike } from "./lenient.js";

/**
 * The `Data` of each operation's successful envelope, as the client reads it from the hosted platform and the
 * self-hosted server alike. Objects the client passes on to its caller unread (listings, history, leads,
 * settings) are only required to be objects: the hosted platform adds members and sends nulls where its docs
 * show values, and refusing those would break the bridge for a field it never looks at.
 */

/** GetSession: the new session's id. */
export const sessionResponse = anyCase({ SessionID: integerLike }).transform((data) => data.SessionID);

/** RealEstateCreate: the new listing's identifier, a number or a string (the hosted platform's ids are text). */
export const listingCreatedResponse = z
  .union([z.string(), z.number()], { error: "the new listing's identifier" })
  .transform(String);

/** RealEstateUpdate: how many listings were updated. */
export const listingsUpdatedResponse = integerLike;

/** RealEstateList: one page; the items are passed on unread, so any object passes (see above). */
export const listingPageResponse = anyCase({
  // Items as they are, not even checked to be objects, as the client always did: a caller shows them.
  List: arrayOf(z.custom<ListingListItem>()),
  VirtualCount: integerLike,
});

/** RealEstateDelete: how many listings existed and were deleted. */
export const listingsDeletedResponse = anyCase({ SuccessCount: integerLike }).transform((data) => data.SuccessCount);

/**
 * ModelList: each model's Key, Value and Status. A missing Key or Value reads as "" and any Status but `true` as
 * unavailable, so that one odd entry of the hosted list does not hide the others.
 */
export const modelListResponse = arrayOf(
  anyCase({
    // Preprocessed rather than transformed: zod refuses a missing member that a transform turns into a value.
    Key: z.preprocess((value) => String(value ?? ""), z.string()),
    Value: z.preprocess((value) => String(value ?? ""), z.string()),
    Status: z.preprocess((value) => value === true, z.boolean()),
  }),
);

/** Add: the new chatbot's serial number. */
export const chatbotAddedResponse = z.string({ error: "the new serial number" }).min(1, "the new serial number");

/** Get (an extension of the self-hosted server): the chatbot's settings and serial number, passed on as they are. */
export const chatbotResponse = anObject<ChatbotSettings & { serialNumber: string }>();

/** ChatContentHistory: sessions passed on unread, unchecked as the client always did. */
export const historyResponse = arrayOf(z.custom<HistorySession>());

/** LeadList: each lead an object, passed on as it is (the hosted platform's leads have members of their own). */
export const leadListResponse = arrayOf(anObject<LeadItem>());

/** LeadAdd (an extension of the self-hosted server): the recorded lead as LeadList shows it. */
export const leadAddedResponse = anObject<LeadItem>();

/** GetPreUploadUrl: the file's id and the pre-signed URL its bytes are PUT to. */
export const preUploadResponse = anyCase({
  FileStoreId: integerLike,
  PreUploadUrl: z
    .unknown()
    .refine((url) => typeof url === "string" && /^https?:\/\//.test(url), { error: "an http(s) URL" })
    .transform(String),
});

/**
 * ClientAsk's plain answer: `{messageid, content, totalToken, noAnswer}` or the streamed final object's shape, in
 * any member case. Not checked here: the client reads it with the decoder it reads streamed answers with, so
 * that both framings are held to the same rules (`src/client/stream/answer-objects.ts`).
 */
export const answerResponse = z.unknown();
