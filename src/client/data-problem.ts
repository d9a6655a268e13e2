import type { z } from "zod";
import { ChatbotApiError } from "./errors.js";

/** `Data.List[3].Key` for an issue at `["List", 3, "Key"]`. */
function dataPath(path: readonly PropertyKey[]): string {
  return `Data${path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("")}`;
}

/**
 * The `malformed` error for an envelope whose `Data` does not fit the operation's response schema, naming the
 * first problem as `expected Data.SessionID to be an integer, got "abc"`: the response schemas' messages say what
 * the value should have been (`src/api/responses/`).
 */
export function dataProblem(operation: string, error: z.ZodError): ChatbotApiError {
  const issue = error.issues[0];
  const what = issue ? `expected ${dataPath(issue.path)} to be ${issue.message}` : "unexpected Data";
  const input = issue?.input;
  const shown = JSON.stringify(input)?.slice(0, 120) ?? String(input);
  return new ChatbotApiError({ operation, kind: "malformed", message: `${what}, got ${shown}` });
}
