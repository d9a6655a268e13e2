/** `Version` of every envelope this project writes. */
export const API_VERSION = "1.0.0";

/** The JSON envelope every operation answers: `Code` equals the HTTP status, `Data` is null on failure. */
export interface Envelope<T = unknown> {
  Data: T;
  Version: string;
  Success: boolean;
  Code: number;
  Message: string;
}
