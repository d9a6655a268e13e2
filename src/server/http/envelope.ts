import type { Response } from "express";
import { API_VERSION, type Envelope } from "../../api/envelope.js";
import type { ApiStatus } from "./api-error.js";

/** The successful envelope of `data`. */
export function dataEnvelope(data: unknown): Envelope {
  return { Data: data ?? null, Version: API_VERSION, Success: true, Code: 200, Message: "" };
}

/** Sends a successful envelope. */
export function sendData(res: Response, data: unknown): void {
  res.status(200).json(dataEnvelope(data));
}

/** The failure envelope: `Data` null, `Code` equal to the HTTP status, `Message` saying what is wrong. */
export function failureEnvelope(status: ApiStatus, message: string): Envelope<null> {
  return { Data: null, Version: API_VERSION, Success: false, Code: status, Message: message };
}

/** Sends a failure envelope with the same HTTP status. */
export function sendFailure(res: Response, status: ApiStatus, message: string): void {
  res.status(status).json(failureEnvelope(status, message));
}
