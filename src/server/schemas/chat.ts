import { z } from "zod";

/** Longest question accepted, in characters. */
export const MAX_QUESTION_LENGTH = 10_000;

export const CHAT_ASK_TYPES = ["Text", "Audio", "Image", "Video"] as const;

/** Images one question may carry (the spec says "several"). */
export const MAX_IMAGES = 10;

/** `/chat/Chat/ClientAsk`. The rules between fields (fileIds per type) are checked by the chat service. */
export const askSchema = z.object({
  sessionID: z.number().int().positive(),
  content: z.string().max(MAX_QUESTION_LENGTH),
  chatAskType: z
    .enum(CHAT_ASK_TYPES)
    .nullish()
    .transform((value) => value ?? "Text"),
  stream: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  fileIds: z
    .array(z.number().int().positive())
    .max(MAX_IMAGES)
    .nullish()
    .transform((value) => value ?? []),
});

export type AskInput = z.output<typeof askSchema>;
