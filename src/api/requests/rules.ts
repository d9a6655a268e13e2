import type { z } from "zod";

/** A refinement message in the API's words, for `.refine(…, must("be …"))`: the sentence after the field name. */
export const must = (text: string) => ({ error: `must ${text}` });

/**
 * The `when` of a rule between fields (`.superRefine(rule, onceValid(fields, ["a", "b"]))`): the rule runs as
 * soon as the fields it reads are valid, even when other fields are not, so that its problem is listed along
 * with theirs. Without it zod would skip the rule whenever any field is wrong.
 */
export function onceValid<S extends z.ZodObject>(fields: S, names: readonly (keyof S["shape"] & string)[]) {
  const picked = fields.pick(Object.fromEntries(names.map((name) => [name, true])) as Record<string, true>);
  return { when: (payload: { value: unknown }) => picked.safeParse(payload.value).success };
}
