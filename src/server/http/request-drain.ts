import type { Request, Response } from "express";
import { answerBeforeBody } from "../../common/early-answer.js";
import type { ApiStatus } from "./api-error.js";
import { failureEnvelope } from "./envelope.js";

/**
 * Sends a failure envelope to a request whose body may not be (all) read yet: a used upload URL, a wrong token,
 * a file or JSON body over the limit, a wrong method. The rest of the body is read and thrown away, bounded, before
 * the response ends, so that a client still sending it receives the answer instead of a reset connection (see
 * {@link answerBeforeBody}).
 */
export function sendFailureBeforeBody(req: Request, res: Response, status: ApiStatus, message: string): void {
  answerBeforeBody(req, res, status, failureEnvelope(status, message));
}
