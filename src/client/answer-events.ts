/** A fragment of a streamed answer; fragments concatenate to the whole answer. */
export interface AnswerDelta {
  type: "delta";
  content: string;
}

/** The end of a streamed answer, with the identifiers the API assigned. */
export interface AnswerFinal {
  type: "final";
  /** Message id of the question; absent when the server answered a stream request with a plain envelope. */
  questionId: number | undefined;
  answerId: number;
  /** The complete answer text. */
  answer: string;
  totalToken: number;
  /** True when the chatbot had no answer (only the plain envelope carries it). */
  noAnswer: boolean | undefined;
}

/** What a streamed `ClientAsk` yields: deltas, then exactly one final. */
export type AnswerEvent = AnswerDelta | AnswerFinal;
