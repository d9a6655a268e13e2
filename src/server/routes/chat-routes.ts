import { type Response, Router } from "express";
import { OPERATIONS } from "../../api/operations.js";
import type { Logger } from "../../common/log.js";
import type { ApiError } from "../http/api-error.js";
import { failureEnvelope } from "../http/envelope.js";
import { strictRoutes } from "../http/methods.js";
import { clientGone, RESPONDED, serveOperation } from "../http/operation.js";
import type { AskEvent, ChatService } from "../services/chat.js";
import type { ApiStore } from "../store/api-store.js";

const frame = (object: unknown) => `data: ${JSON.stringify(object)}\n\n`;

/**
 * `/chat/Chat/ClientAsk`. With `stream: true` the answer is Server-Sent Events: `data: {"content":"…"}` per
 * fragment, then `data: {"QuestionID","AnswerID","Answer","TotalToken"}`. Every check happens before the
 * first byte, so a refused question is a plain envelope with its status; a failure after streaming began is
 * an envelope-shaped `data:` frame, then the end of the stream.
 */
export function chatRoutes(store: ApiStore, chat: ChatService, log: Logger): Router {
  const router = Router();
  const routes = strictRoutes(router);
  serveOperation(routes, store, OPERATIONS.ask, async ({ input, workspace, res }) => {
    const prepared = await chat.prepare(workspace, input);
    const signal = clientGone(res);
    const events = chat.answer(prepared, signal);
    if (!input.stream) {
      let final: Extract<AskEvent, { type: "final" }> | undefined;
      for await (const event of events) if (event.type === "final") final = event;
      if (!final) return RESPONDED; // the client left; nobody to answer
      return {
        messageid: final.answerId,
        content: final.answer,
        totalToken: final.totalToken,
        noAnswer: final.noAnswer,
      };
    }
    await streamAnswer(res, events, log);
    return RESPONDED;
  });
  return router;
}

async function streamAnswer(res: Response, events: AsyncIterable<AskEvent>, log: Logger): Promise<void> {
  res.status(200).set({
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  try {
    for await (const event of events) {
      if (res.destroyed) break;
      if (event.type === "text") res.write(frame({ content: event.text }));
      else {
        res.write(
          frame({
            QuestionID: event.questionId,
            AnswerID: event.answerId,
            Answer: event.answer,
            TotalToken: event.totalToken,
            // Not in the spec's final object; added so that a streaming client can offer a person when the
            // chatbot had no answer, as the plain envelope's noAnswer lets a non-streaming one.
            NoAnswer: event.noAnswer,
          }),
        );
      }
    }
  } catch (error) {
    const failure = error as ApiError;
    log.warn({ err: error }, "ClientAsk stream failed after it began");
    if (!res.destroyed)
      res.write(frame(failureEnvelope(failure.status ?? 500, failure.message || "The answer failed")));
  }
  res.end();
}
