import { randomBytes } from "node:crypto";

/** A call the Graph API refuses, answered `{ error: { message, type, code, error_subcode?, error_data?, fbtrace_id } }`. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly options: { type?: string; subcode?: number; details?: string } = {},
  ) {
    super(message);
  }

  /** The answer's body; each gets a fresh fbtrace_id, as Meta's do. */
  json(): object {
    const { type = "OAuthException", subcode, details } = this.options;
    return {
      error: {
        message: this.message,
        type,
        code: this.code,
        ...(subcode !== undefined && { error_subcode: subcode }),
        ...(details !== undefined && { error_data: { messaging_product: "whatsapp", details } }),
        fbtrace_id: randomBytes(12).toString("base64url"),
      },
    };
  }
}

export const invalidToken = () => new GraphError(401, 190, "Invalid OAuth access token.");

/**
 * Bad or missing fields of a send. Meta uses other codes for some of them too (e.g. 131009 "Parameter value is not
 * valid", 131008 for a missing one); the exact real answer for each case, a too-long text included, is unverified.
 */
export const invalidParameter = (details: string) => new GraphError(400, 100, "(#100) Invalid parameter", { details });

/** Graph's answer for an object id it does not know or a request the object does not support. */
export const unsupportedRequest = (method: string, id: string) =>
  new GraphError(
    400,
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { type: "GraphMethodException", subcode: 33 },
  );

/** A WhatsApp error on a well-formed send: "(#<code>) <title>" with the reason in error_data.details. */
export const messagingError = (code: number, title: string, details: string) =>
  new GraphError(400, code, `(#${code}) ${title}`, { details });
