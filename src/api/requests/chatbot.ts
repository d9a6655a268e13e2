import { z } from "zod";
import { PICTURE_KINDS } from "../chatbot-pictures.js";
import {
  calendarDay,
  daysInOrder,
  emailOrEmpty,
  rgbColor,
  serialNumber,
  text,
  timeZone,
  urlOrEmpty,
  wholeNumber,
} from "./fields.js";
import { onceValid } from "./rules.js";

/**
 * Allowed values where the spec is silent: Temperature is a whole number from 0 (focused) to 10 (creative),
 * which the LLM provider maps to 0–2; ChatBubbleAlign is 0 (bottom right, the hosted sample's value) or
 * 1 (bottom left).
 */
export const TEMPERATURE_MAX = 10;
export const BUBBLE_ALIGNMENTS = [0, 1] as const;

/** Every editable setting, all optional: Edit changes only what it is given. */
export const settingsShape = {
  Name: z.string().trim().min(1).max(100),
  Model: z.string().max(64),
  SystemMessage: text(20_000),
  Temperature: wholeNumber(0, TEMPERATURE_MAX),
  TimeZone: timeZone,
  AnswerSuffix: text(1000),
  ChatProfilePicture: text(64),
  ChatIcon: text(64),
  ChatBubbleAlign: z.literal([...BUBBLE_ALIGNMENTS]),
  ChatBubbleColor: rgbColor,
  ChatbotPopupOnce: z.boolean(),
  ChatbotPrivacyPolicyDescription: text(5000),
  ChatbotPrivacyPolicyName: text(200),
  ChatbotPrivacyPolicyUrl: urlOrEmpty,
  EnablePushToTalk: z.boolean(),
  EnableUploadImage: z.boolean(),
  FacebookUrl: urlOrEmpty,
  InstagramUrl: urlOrEmpty,
  WhatsappUrl: urlOrEmpty,
  RemoveChatLogOnBrowserClose: z.boolean(),
  SuggestedMessage: text(5000),
  TalkToHumanEmail: emailOrEmpty,
  TalkToHumanResponseMessage: text(2000),
  UserInputPlaceholder: text(200),
  UserMessageColor: rgbColor,
  WelcomeMessage: text(5000),
  VerifyDomain: z.boolean(),
  Domains: text(5000),
  CustomDomain: text(255),
  RateLimitCount: wholeNumber(0, 1_000_000),
  RateLimitTime: wholeNumber(1, 86_400 * 31),
  RateLimitMessage: text(1000),
  EmailForDailyChatLogs: emailOrEmpty,
  EmailForDailyLeads: emailOrEmpty,
  AIResponseLanguage: text(50),
  MessageLimit: z.number().int().min(-1).max(100_000_000),
};

const optionalSettings = Object.fromEntries(
  Object.entries(settingsShape).map(([name, schema]) => [name, schema.optional()]),
) as { [K in keyof typeof settingsShape]: z.ZodOptional<(typeof settingsShape)[K]> };

/**
 * `/chat/Chatbot/Edit`. Which `Model` keys exist is the serving side's to know (ModelList); the self-hosted
 * server narrows `Model` to its available models with {@link editChatbotSchema}'s `extend`.
 */
export const editChatbotSchema = z.object({ serialNumber, ...optionalSettings });

/** `/chat/Chatbot/Add`: `type` 0 is the only kind of chatbot (generic) the hosted docs allow. */
export const addChatbotSchema = z.object({
  timeZone,
  type: z.literal(0, { error: "must be 0 (generic chatbot)" }),
});

/** Operations that take only the chatbot: Remove, Get, GetSession. */
export const chatbotRefSchema = z.object({ serialNumber });

/** The query of the self-hosted server's picture route (`/chat/Chatbot/Picture`): which chatbot, which picture. */
export const pictureQuerySchema = z.object({ serialNumber, kind: z.enum(PICTURE_KINDS) });

const historyFields = z.object({
  SerialNumber: serialNumber,
  StartTime: calendarDay.optional(),
  EndTime: calendarDay.optional(),
});

/** `/chat/Chatbot/ChatContentHistory`: dates in UTC, EndTime inclusive. */
export const historySchema = historyFields.superRefine(
  daysInOrder("StartTime", "EndTime"),
  onceValid(historyFields, ["StartTime", "EndTime"]),
);
