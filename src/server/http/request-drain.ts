import type { Request, Response } from "express";
import type { ApiStatus } from "./api-error.js";
import { failureEnvelope, sendFailure } from "./envelope.js";

/** Body bytes still read, and thrown away, after the server answered without reading the body. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** How long the rest of such a body may take to arrive. */
export const DRAIN_LIMIT_MS = 10_000;

/**
 * Sends a failure envelope to a request whose body is not (all) read yet: a used upload URL, a wrong token,
 * a file or JSON body over the limit, a wrong method. The client is often still sending that body when the
 * answer goes out; closing the connection with bytes unread would make it see EPIPE or ECONNRESET instead of
 * the answer, and Node.js's own remedy (reading the whole body) has no bound.
 *
 * A body declared no longer than {@link DRAIN_LIMIT_BYTES} is read to its end and thrown away; the connection
 * stays open for the next request. A longer one, or one of unknown length, gets the whole answer at once but
 * with `Connection: close`, so that the client opens a new connection for its next request, and the server
 * ends the response, which closes the connection, only once the body has ended or
 * {@link DRAIN_LIMIT_BYTES} more of it were read or {@link DRAIN_LIMIT_MS} passed: by then the client has long
 * had the answer, instead of losing it to a reset that races it.
 */
export function sendFailureBeforeBody(req: Request, res: Response, status: ApiStatus, message: string): void {
  if (req.complete || req.readableEnded || req.destroyed) {
    sendFailure(res, status, message);
    return;
  }
  const declared = req.headers["content-length"] === undefined ? Number.NaN : Number(req.headers["content-length"]);
  if (declared <= DRAIN_LIMIT_BYTES) {
    // Only a client too slow to send what it announced loses its connection.
    discard(req, { ended: () => {}, cut: () => req.socket.destroy() });
    sendFailure(res, status, message);
    return;
  }
  const body = Buffer.from(JSON.stringify(failureEnvelope(status, message)));
  res.status(status).set({
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(body.length),
    Connection: "close",
  });
  res.write(body);
  discard(req, {
    ended: () => res.end(),
    cut: () => {
      req.pause();
      res.end();
    },
  });
}

/** Reads and throws away the rest of the body: `ended` when it ended, `cut` when it went past the limits. */
function discard(req: Request, then: { ended: () => void; cut: () => void }): void {
  let received = 0;
  let settled = false;
  const settle = (callback: () => void) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    callback();
  };
  const timer = setTimeout(() => settle(then.cut), DRAIN_LIMIT_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_LIMIT_BYTES) settle(then.cut);
  });
  req.once("end", () => settle(then.ended));
  req.once("close", () => settle(then.ended));
  req.on("error", () => {});
  req.resume();
}
