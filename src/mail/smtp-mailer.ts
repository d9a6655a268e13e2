/** One outgoing mail, with a plain-text and an HTML body (clients show whichever they prefer). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Where the recipient's "Reply" goes, e.g. the user's own address when they gave one. */
  replyTo?: string;
  /** Files sent with it, as text (a calendar invitation): kept as they are in the outbox, which stores JSON. */
  attachments?: MailAttachment[];
}

/** A text file attached to a {@link Mail}. */
export interface MailAttachment {
  filename: string;
  /** The MIME type, e.g. `text/calendar; charset=utf-8; method=PUBLISH`. */
  contentType: string;
  content: string;
}

/** Hands mails to a mail server. */
export interface Mailer {
  /** Resolves once the server accepted the mail; rejects with a {@link MailError}. */
  send(mail: Mail): Promise<void>;
  /** Drops the transport; mails sent after this fail. */
  close(): void;
}

/**
 * A mail the server did not accept. `temporary` says whether the same mail may go through later (a 4xx reply, the
 * server unreachable, a timeout) or never will (a 5xx reply, an invalid address). Its message names the server
 * but never its credentials.
 */
export class MailError extends Error {
  override readonly name = "MailError";

  constructor(
    message: string,
    readonly temporary: boolean,
    /** The SMTP reply code, when the server answered with one. */
    readonly responseCode?: number,
  ) {
    super(message);
  }
}

/** Longest wait for the TCP (and TLS) connection. */
const CONNECTION_TIMEOUT_MS = 10_000;
/** Longest wait for the server's greeting once connected. */
const GREETING_TIMEOUT_MS = 10_000;
/** Longest silence of the server in the middle of the conversation. */
const SOCKET_TIMEOUT_MS = 15_000;
/** Longest DNS lookup of the server's host. */
const DNS_TIMEOUT_MS = 10_000;
/**
 * Longest whole send: the timeouts above each restart on every reply, so a server that trickles its answers
 * could otherwise hold a handoff (and the user waiting for it) for minutes.
 */
const SEND_DEADLINE_MS = 30_000;

/** Failures without an SMTP reply that are about the mail itself (empty, too large, invalid address). */
const PERMANENT_WITHOUT_REPLY = new Set(["EENVELOPE", "EMESSAGE", "EMAXRECIPIENTS"]);

/** What nodemailer attaches to the errors it rejects with. */
interface SmtpFailure {
  message?: unknown;
  code?: unknown;
  responseCode?: unknown;
}

/**
 * A {@link Mailer} over nodemailer's SMTP transport for SMTP_URL (`smtp://user:pass@host:587`, upgraded with
 * STARTTLS when the server offers it, or `smtps://…:465`), sending from MAIL_FROM.
 *
 * Not pooled: a bridge sends a handoff mail now and then, and a pooled connection left idle is dropped by most
 * servers after a few minutes, so the next mail would meet a dead socket; one short connection per mail also
 * leaves no socket behind at shutdown. `sendTimeoutMs` bounds a whole send (30 s by default).
 */
export function createSmtpMailer(options: { smtpUrl: string; from: string; sendTimeoutMs?: number }): Mailer {
  const server = describeServer(options.smtpUrl);
  const secrets = urlSecrets(options.smtpUrl);
  // nodemailer (2 MB in memory) is imported only by a process that mails, and only the first time it is needed.
  const transport = import("nodemailer").then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      url: options.smtpUrl,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: GREETING_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      dnsTimeout: DNS_TIMEOUT_MS,
    }),
  );
  const deadlineMs = options.sendTimeoutMs ?? SEND_DEADLINE_MS;
  return {
    async send(mail) {
      try {
        await (await transport).sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          replyTo: mail.replyTo,
          attachments: mail.attachments?.map(({ filename, contentType, content }) => ({
            filename,
            contentType,
            content,
          })),
          signal: AbortSignal.timeout(deadlineMs),
        });
      } catch (error) {
        throw toMailError(error, server, secrets);
      }
    },
    close() {
      void transport.then((open) => open.close());
    },
  };
}

function toMailError(error: unknown, server: string, secrets: string[]): MailError {
  const failure: SmtpFailure = typeof error === "object" && error !== null ? error : { message: error };
  const responseCode = typeof failure.responseCode === "number" ? failure.responseCode : undefined;
  const temporary =
    responseCode !== undefined
      ? // 503 "bad sequence of commands" is about the session's state, not the mail: a new connection may pass.
        responseCode < 500 || responseCode === 503
      : !PERMANENT_WITHOUT_REPLY.has(String(failure.code));
  let reason = String(failure.message ?? error);
  for (const secret of secrets) reason = reason.replaceAll(secret, "***");
  return new MailError(`sending a mail through ${server} failed: ${reason}`, temporary, responseCode);
}

/** Scheme, host and port of the SMTP URL: what can be shown of it (in errors, in the start banner). */
export function describeServer(smtpUrl: string): string {
  const url = URL.parse(smtpUrl);
  return url ? `${url.protocol}//${url.host}` : "the SMTP server of SMTP_URL";
}

/**
 * The password as written in the URL, as the URL parser normalises it, and decoded: the forms a message could
 * repeat, longest first so that a longer one is blanked out whole.
 */
function urlSecrets(smtpUrl: string): string[] {
  const written = /^[a-z]+:\/\/[^:/?#@]*:([^/?#]*)@/i.exec(smtpUrl)?.[1] ?? "";
  const forms = [written, URL.parse(smtpUrl)?.password ?? ""];
  for (const form of [...forms]) {
    try {
      forms.push(decodeURIComponent(form));
    } catch {
      // A malformed escape is sent as written, and the written form is already listed.
    }
  }
  return [...new Set(forms)].filter((form) => form !== "").sort((a, b) => b.length - a.length);
}
