import type { AnswerDelta, AnswerEvent, AnswerFinal } from "../answer-events.js";
import { envelopeError, isEnvelope } from "../envelope.js";
import { ChatbotApiError } from "../errors.js";

/** The answer that the `Data` of a plain (non-stream) `ClientAsk` envelope carries. */
export interface EnvelopeAnswer {
  content: string;
  /** The answer's message id (`messageid`, or `AnswerID` when the data has the final object's shape). */
  messageId: number;
  totalToken: number;
  /** Absent when the server did not say. */
  noAnswer: boolean | undefined;
}

/** A successful plain envelope met where a stream was expected: the whole answer as one delta, then the final. */
export interface PlainAnswerObject {
  type: "plain";
  delta: AnswerDelta;
  final: AnswerFinal;
}

/** What one object of a streamed answer stands for; `undefined` for keep-alives and objects of no known shape. */
export type AnswerObject = AnswerEvent | PlainAnswerObject | undefined;

/** The members the answer objects use, keyed by lower-cased name, since the server's casing varies. */
interface Members {
  success?: unknown;
  code?: unknown;
  message?: unknown;
  data?: unknown;
  content?: unknown;
  answer?: unknown;
  answerid?: unknown;
  questionid?: unknown;
  messageid?: unknown;
  totaltoken?: unknown;
  noanswer?: unknown;
}

// Deltas exactly as servers usually write them: one `content` member whose string holds no raw control
// character (JSON.parse would refuse it), first without escapes, then with. Sticky, to be tried where an
// object starts; written as unrolled loops, so a miss costs linear time.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const UNESCAPED_DELTA = /\{"content":"[^"\\\u0000-\u001f]*"\}/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const ESCAPED_DELTA = /\{"content":"[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}/y;
// The same delta as a whole SSE event: `data:`, an optional space, the object alone on its line, a blank
// line. Matching the event in one call measured 10% faster on SSE than matching its parts one by one.
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const UNESCAPED_SSE_DELTA = /data: ?\{"content":"[^"\\\u0000-\u001f]*"\}\n\n/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const ESCAPED_SSE_DELTA = /data: ?\{"content":"[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}\n\n/y;

/**
 * Reads deltas written the usual way, `{"content":"..."}` (or, for SSE, the event `data: {"content":"..."}`
 * followed by its blank line), straight out of the text they arrive in: they are the bulk of a stream,
 * and need neither the general splitter nor a full `JSON.parse`.
 */
export class PlainDeltaReader {
  /** The index just past the delta (or SSE event) that {@link read} returned last. */
  end = 0;
  readonly #sse: boolean;
  readonly #unescaped: RegExp;
  readonly #escaped: RegExp;

  constructor(shape: "object" | "sse event" = "object") {
    this.#sse = shape === "sse event";
    this.#unescaped = this.#sse ? UNESCAPED_SSE_DELTA : UNESCAPED_DELTA;
    this.#escaped = this.#sse ? ESCAPED_SSE_DELTA : ESCAPED_DELTA;
  }

  /**
   * The delta starting exactly at `at` in `text`, as `JSON.parse` would read it; `undefined` when what
   * starts there is something else, does not end within `text`, or holds a bad escape (all of which the
   * general path handles and reports).
   */
  read(text: string, at: number): AnswerDelta | undefined {
    // The string's opening quote, and what follows its closing quote: `}`, or `}\n\n` for an SSE event.
    const quote = this.#sse ? (text.charCodeAt(at + 5) === 0x20 ? at + 17 : at + 16) : at + 11;
    const after = this.#sse ? 3 : 1;
    this.#unescaped.lastIndex = at;
    if (this.#unescaped.test(text)) {
      this.end = this.#unescaped.lastIndex;
      return { type: "delta", content: text.slice(quote + 1, this.end - after - 1) };
    }
    this.#escaped.lastIndex = at;
    if (!this.#escaped.test(text)) return undefined;
    this.end = this.#escaped.lastIndex;
    try {
      // Only the string literal is left to decode.
      return { type: "delta", content: JSON.parse(text.slice(quote, this.end - after)) };
    } catch {
      return undefined;
    }
  }
}

const plainDeltas = new PlainDeltaReader();

/**
 * Parses and classifies the text of one streamed object (see {@link classifyAnswerObject}); a plain
 * delta is read by a {@link PlainDeltaReader}, to the same result. Throws a `SyntaxError` when the
 * text is not JSON.
 */
export function readAnswerObject(operation: string, text: string, partialText: () => string): AnswerObject {
  const delta = plainDeltas.read(text, 0);
  if (delta && plainDeltas.end === text.length) return delta;
  return classifyAnswerObject(operation, JSON.parse(text), partialText);
}

/**
 * Says what a parsed object of a streamed answer is, reading member names case-insensitively (the hosted
 * platform is ASP.NET: `AnswerID`, `answerid`, `Content`...):
 * - an envelope (`Success` with `Code` or `Message`): `Success: false` throws a {@link ChatbotApiError} of
 *   kind `envelope` carrying `partialText`; a successful one yields the answer in its `Data`;
 * - `Answer` or `AnswerID`: the final object;
 * - a `content` member: a delta;
 * - any other object (`{}` keep-alives, pings): `undefined`.
 *
 * Throws a `malformed` error for a value that is not an object (an SSE event may carry any JSON), a
 * delta whose content is not a string, or a final without a usable `AnswerID`. `partialText` gives the text of the deltas so far (only asked for when needed, since
 * joining it costs): errors carry it, and a final without `Answer` takes it as its answer.
 */
export function classifyAnswerObject(operation: string, value: unknown, partialText: () => string): AnswerObject {
  if (!isRecord(value))
    throw malformed(operation, `a streamed value is not an object: ${excerpt(value)}`, partialText());
  // Deltas are nearly every object of a stream, so their usual exact shape skips the general member scan.
  const content = value.content;
  if (typeof content === "string" && hasSingleKey(value)) return { type: "delta", content };
  const members = membersOf(value);
  if ("success" in members && ("code" in members || "message" in members)) {
    if (!isTrue(members.success)) throw envelopeError(operation, value, { partialText: partialText() });
    const data = members.data;
    const inner = isRecord(data) ? membersOf(data) : undefined;
    if (inner && isFinalShaped(inner) && !("messageid" in inner))
      return finalFrom(operation, inner, data as object, partialText);
    const answer = answerFromEnvelopeData(operation, data, partialText);
    return {
      type: "plain",
      delta: { type: "delta", content: answer.content },
      final: {
        type: "final",
        questionId: undefined,
        answerId: answer.messageId,
        answer: answer.content,
        totalToken: answer.totalToken,
        noAnswer: answer.noAnswer,
      },
    };
  }
  if (isFinalShaped(members)) return finalFrom(operation, members, value, partialText);
  if ("content" in members) {
    if (typeof members.content === "string") return { type: "delta", content: members.content };
    throw malformed(operation, `a streamed object's content is not a string: ${excerpt(value)}`, partialText());
  }
  return undefined;
}

/**
 * The error an SSE `error` event stands for: that of the envelope it carries, or else one of kind
 * `envelope` whose message is the event's text.
 */
export function errorEventError(operation: string, data: string, partialText: string): ChatbotApiError {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    value = undefined;
  }
  if (isEnvelope(value)) return envelopeError(operation, value, { partialText });
  const message = data.length > 200 ? `${data.slice(0, 197)}...` : data || "the stream reported an error";
  return new ChatbotApiError({ operation, kind: "envelope", message, partialText: partialText || undefined });
}

/**
 * Reads the answer out of a successful `ClientAsk` envelope's `Data`: the plain shape
 * (`{messageid, content, totalToken, noAnswer}`) or the final object's shape (`{AnswerID, Answer, ...}`),
 * any member casing, numbers possibly as numeric strings. Throws a `malformed` {@link ChatbotApiError}
 * when `Data` is neither; met inside a stream, the error carries `partialText`.
 */
export function answerFromEnvelopeData(
  operation: string,
  data: unknown,
  partialText: () => string = () => "",
): EnvelopeAnswer {
  const fail = (what: string) => malformed(operation, `${what}: ${excerpt(data)}`, partialText());
  if (!isRecord(data)) throw fail("the answer envelope's Data is not an object");
  const members = membersOf(data);
  if (isFinalShaped(members) && !("messageid" in members)) {
    const final = finalFrom(operation, members, data, partialText);
    return { content: final.answer, messageId: final.answerId, totalToken: final.totalToken, noAnswer: final.noAnswer };
  }
  const messageId = integer(members.messageid);
  if (messageId === undefined) throw fail("the answer has no valid messageid");
  const noAnswer = booleanish(members.noanswer);
  // An answer the chatbot did not have may come with a null content; any other content must be text.
  const content = members.content == null && noAnswer === true ? "" : members.content;
  if (typeof content !== "string") throw fail("the answer's content is not text");
  return { content, messageId, totalToken: tokens(operation, members, data, partialText), noAnswer };
}

function finalFrom(operation: string, members: Members, source: object, partialText: () => string): AnswerFinal {
  const answerId = integer(members.answerid);
  if (answerId === undefined) {
    throw malformed(operation, `the final object has no valid AnswerID: ${excerpt(source)}`, partialText());
  }
  const questionId = members.questionid == null ? undefined : integer(members.questionid);
  if (members.questionid != null && questionId === undefined) {
    throw malformed(operation, `the final object's QuestionID is not a number: ${excerpt(source)}`, partialText());
  }
  // Without `Answer` the deltas are all the text there is.
  const answer = members.answer == null ? partialText() : members.answer;
  if (typeof answer !== "string") {
    throw malformed(operation, `the final object's Answer is not text: ${excerpt(source)}`, partialText());
  }
  return {
    type: "final",
    questionId,
    answerId,
    answer,
    totalToken: tokens(operation, members, source, partialText),
    noAnswer: booleanish(members.noanswer),
  };
}

function tokens(operation: string, members: Members, source: object, partialText: () => string): number {
  if (members.totaltoken == null) return 0;
  const total = integer(members.totaltoken);
  if (total === undefined) throw malformed(operation, `TotalToken is not a number: ${excerpt(source)}`, partialText());
  return total;
}

function membersOf(object: Record<string, unknown>): Members {
  // No prototype: a member named `__proto__` stays a plain member and cannot fake the others.
  const members: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(object)) members[key.toLowerCase()] = object[key];
  return members as Members;
}

function isFinalShaped(members: Members): boolean {
  return "answer" in members || "answerid" in members;
}

function hasSingleKey(object: object): boolean {
  let count = 0;
  for (const key in object) if (Object.hasOwn(object, key) && ++count > 1) return false;
  return count === 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTrue(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

function booleanish(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return undefined;
}

/** Accepts integers and numeric strings ("123"), which some server versions send. */
function integer(value: unknown): number | undefined {
  const number = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) ? number : undefined;
}

function excerpt(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function malformed(operation: string, message: string, partialText?: string): ChatbotApiError {
  return new ChatbotApiError({ operation, kind: "malformed", message, partialText: partialText || undefined });
}
