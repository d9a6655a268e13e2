import { z } from "zod";

/** `/chat/User/GetPreUploadUrl`. */
export const preUploadSchema = z.object({
  fileName: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((name) => !/[\\/\0]/.test(name), "must be a file name without path separators"),
});

/** The upload confirmation: the hosted platform shows FileStoreId as a string, so a numeric string is fine. */
export const confirmUploadSchema = z.object({
  FileStoreId: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, "must be a file id")]).transform(Number),
});
