import type { ChatbotSettings } from "./types.js";

/**
 * A chatbot's two pictures: `profile` (ChatProfilePicture, the avatar) and `icon` (ChatIcon, the web chat launcher's
 * picture). Both settings hold a file id from the three-step upload, or (accepted by the web chat) an http(s) URL.
 */
export const PICTURE_KINDS = ["profile", "icon"] as const;

/** Which of a chatbot's pictures: see {@link PICTURE_KINDS}. */
export type PictureKind = (typeof PICTURE_KINDS)[number];

/** The setting each picture is named by. */
export const PICTURE_SETTINGS = {
  profile: "ChatProfilePicture",
  icon: "ChatIcon",
} as const satisfies Record<PictureKind, keyof ChatbotSettings>;

/**
 * The self-hosted server's route serving a picture's bytes (`?serialNumber=…&kind=profile|icon`), an extension: the
 * hosted platform documents no way to download a file.
 */
export const CHATBOT_PICTURE_PATH = "/chat/Chatbot/Picture";

/** Whether `kind` names one of the two pictures. */
export function isPictureKind(kind: unknown): kind is PictureKind {
  return PICTURE_KINDS.includes(kind as PictureKind);
}

/**
 * The file id a picture setting holds (a FileStoreId is a whole number ≥ 1, which the hosted platform writes as a
 * string, e.g. `"34327"`; a safe integer, as ids are), or undefined when it holds anything else: nothing, an address, free text.
 */
export function pictureFileId(value: string | undefined): string | undefined {
  const candidate = value?.trim() ?? "";
  return /^[1-9]\d*$/.test(candidate) && Number.isSafeInteger(Number(candidate)) ? candidate : undefined;
}
