import type { Request, Response } from "express";

/** Body bytes still read, and thrown away, after a route answered without reading the body. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
/** How long the rest of such a body may take to arrive. */
export const DRAIN_LIMIT_MS = 10_000;

/**
 * Answers `status` with `payload` as JSON to a request whose body may not be (all) read yet: a refusal decided from
 * the headers alone (a wrong key or signature, a used upload URL, a Content-Length over the limit, a wrong method).
 * Used by every route of the API server and of the webhooks that answers before reading the body.
 *
 * The client is often still sending that body when the answer goes out. Closing the connection with bytes of it
 * unread makes the kernel reset the connection, and the client then sees EPIPE or ECONNRESET instead of the answer
 * (a client that sends its whole body before it reads loses the answer every time). Node.js closes right after the
 * response when the client asked for `Connection: close` (or spoke HTTP/1.0), and its other remedy, reading the
 * whole body, has no bound. So the whole answer is written at once, its `Content-Length` telling the client it is
 * complete, but the response is ended, which may close the connection, only once the rest of the body has been read
 * and thrown away:
 *
 * - a body declared no longer than {@link DRAIN_LIMIT_BYTES} is read to its end; the connection stays open for the
 *   next request if the client keeps it;
 * - a longer one, or one of unknown length (chunked), gets `Connection: close`, so that the client opens a new
 *   connection for its next request, and is read until it ends or {@link DRAIN_LIMIT_BYTES} more were read;
 * - either way, past {@link DRAIN_LIMIT_MS} or the byte bound the connection is closed: by then the client has long
 *   had the answer, and nobody can make the server read an endless body.
 */
export function answerBeforeBody(req: Request, res: Response, status: number, payload: unknown): void {
  if (!hasUnreadBody(req)) {
    res.status(status).json(payload);
    return;
  }
  const body = Buffer.from(JSON.stringify(payload));
  const declared = req.headers["content-length"] === undefined ? Number.NaN : Number(req.headers["content-length"]);
  res.status(status).set({ "Content-Type": "application/json; charset=utf-8", "Content-Length": String(body.length) });
  if (!(declared <= DRAIN_LIMIT_BYTES)) res.set("Connection", "close");
  res.write(body);
  discard(req, {
    ended: () => res.end(),
    cut: () => {
      req.pause();
      res.end();
      // The rest of the body is still on its way: the connection cannot carry another request.
      req.socket.destroySoon();
    },
  });
}

/** Whether bytes of the body may still be on their way (none for a request without a body, or one read to its end). */
function hasUnreadBody(req: Request): boolean {
  if (req.complete || req.readableEnded || req.destroyed) return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) > 0);
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
  // The client went away: nothing left to read, and ending the response is harmless.
  req.once("close", () => settle(then.ended));
  req.on("error", () => {});
  req.resume();
}

/**
 * For a route that may refuse from the headers alone, in any of several checks (who asks, their limits, what they
 * send): the first JSON answer it gives goes through {@link answerBeforeBody}, so that a refusal before the body is
 * read reaches a client still sending it, and an answer after reading the body goes out as usual.
 */
export function answeringBeforeBody(req: Request, res: Response, next: () => void): void {
  const json = res.json;
  res.json = (payload: unknown) => {
    res.json = json;
    answerBeforeBody(req, res, res.statusCode, payload);
    return res;
  };
  next();
}
