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

const FILE_ID = "must be a file id as GetPreUploadUrl gave it: a number, or the same as a string";

/** The upload confirmation: the hosted platform shows FileStoreId as a string, so a numeric string is fine. */
export const confirmUploadSchema = z.object({
  FileStoreId: z
    .union(
      [
        z.number().int().min(1, FILE_ID),
        // A safe integer, as ids are: a longer string of digits is no id (and no database takes it).
        z
          .string()
          .regex(/^[1-9]\d*$/, FILE_ID)
          .refine((id) => Number.isSafeInteger(Number(id)), FILE_ID),
      ],
      { error: FILE_ID },
    )
    .transform(Number),
});

/** Operations that take no fields (ModelList, a GET): whatever a body holds is ignored. */
export const noFieldsSchema = z.object({});
