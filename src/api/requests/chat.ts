import { z } from "zod";
import { MEDIA_RULES } from "../media-rules.js";
import { onceValid } from "./rules.js";

/** Longest question accepted, in characters. */
export const MAX_QUESTION_LENGTH = 10_000;

export const CHAT_ASK_TYPES = ["Text", "Audio", "Image", "Video"] as const;

/** Images one question may carry (the spec says "several"). */
export const MAX_IMAGES = MEDIA_RULES.Image.maxFiles;

const askFields = z.object({
  sessionID: z.number().int().min(1),
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
    .array(z.number().int().min(1))
    .max(MAX_IMAGES)
    .nullish()
    .transform((value) => value ?? []),
});

/**
 * `/chat/Chat/ClientAsk`, with the spec's rules between fields: a Text question needs content and takes no
 * files; Image takes one or more files, Audio and Video exactly one. Whether the files exist, are confirmed and
 * have the right format is the chat service's to check.
 */
export const askSchema = askFields.superRefine(
  ({ content, chatAskType, fileIds }, ctx) => {
    const problem = (field: "content" | "fileIds", message: string) =>
      ctx.addIssue({ code: "custom", path: [field], message, input: field === "content" ? content : fileIds });
    if (chatAskType === "Text") {
      if (content.trim() === "") problem("content", "must not be empty when chatAskType is Text");
      if (fileIds.length > 0) problem("fileIds", "is only valid when chatAskType is Image, Audio or Video");
      return;
    }
    const { maxFiles } = MEDIA_RULES[chatAskType];
    if (fileIds.length === 0) problem("fileIds", `is required when chatAskType is ${chatAskType}`);
    else if (fileIds.length > maxFiles) {
      problem(
        "fileIds",
        `must hold ${maxFiles === 1 ? "exactly one file" : `at most ${maxFiles} files`} for ${chatAskType}`,
      );
    }
  },
  onceValid(askFields, ["content", "chatAskType", "fileIds"]),
);

export type AskInput = z.output<typeof askSchema>;
