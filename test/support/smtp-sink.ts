import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerDataStream } from "smtp-server";

/** A mail the sink accepted, parsed. */
export interface ReceivedMail {
  /** The envelope's MAIL FROM and RCPT TO addresses. */
  envelope: { from: string; to: string[] };
  /** The From header's display name and address. */
  from: { name: string; address: string };
  to: string;
  replyTo: string | undefined;
  subject: string;
  text: string;
  html: string;
  /** The attached files, their content as text. */
  attachments: { filename: string; contentType: string; content: string }[];
}

/** The SMTP commands whose replies {@link SmtpSink.failNext} can turn into errors. */
export type FailingCommand = "RCPT" | "DATA";

/**
 * A real SMTP server on 127.0.0.1 that requires a login (so the client really sends the password) and records
 * every mail it accepts; a wrong password is refused with a reply that repeats it. It can refuse the next commands with a chosen reply code, and go down and come back on
 * the same port. No TLS: STARTTLS is disabled, so a client sends in plain text as on a local relay.
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = [];
  readonly user = "bridge";
  readonly password: string;
  #port = 0;
  #server: SMTPServer | undefined;
  readonly #failures: { command: FailingCommand; code: number }[] = [];

  private constructor(password: string) {
    this.password = password;
  }

  /** Starts a sink on a free port that accepts `bridge` with `password`. */
  static async start(password = "s3cret-P@ss:word"): Promise<SmtpSink> {
    const sink = new SmtpSink(password);
    await sink.#listen();
    return sink;
  }

  get port(): number {
    return this.#port;
  }

  /** An SMTP_URL for this sink, with the sink's password unless another is given. */
  url(password = this.password): string {
    return `smtp://${this.user}:${encodeURIComponent(password)}@127.0.0.1:${this.#port}`;
  }

  /** Answers the next `times` `command`s with `code` (4xx: try later, 5xx: refused for good). */
  failNext(command: FailingCommand, code: number, times = 1): void {
    for (let i = 0; i < times; i++) this.#failures.push({ command, code });
  }

  /** Stops listening: connections are refused until {@link restart}. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.#listen();
  }

  async #listen(): Promise<void> {
    const server = new SMTPServer({
      logger: false,
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      authMethods: ["PLAIN", "LOGIN"],
      // A client still connected when the sink stops is cut off at once instead of after the default 30 s.
      closeTimeout: 100,
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.user && auth.password === this.password) callback(null, { user: auth.username });
        // Repeating the password it got, as a careless server might, lets tests check that clients blank it out.
        else callback(replyError(535, `5.7.8 Authentication failed for ${auth.username}:${auth.password}`));
      },
      onRcptTo: (_address, _session, callback) => callback(this.#failure("RCPT")),
      onData: (stream, session, callback) => this.#receive(stream, session.envelope, callback),
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.#port = (server.server.address() as AddressInfo).port;
    this.#server = server;
  }

  #receive(
    stream: SMTPServerDataStream,
    envelope: { mailFrom: { address: string } | false; rcptTo: { address: string }[] },
    callback: (error?: Error | null) => void,
  ): void {
    const failure = this.#failure("DATA");
    if (failure) {
      // The message must be read to its end before the reply, or the client waits for it forever.
      stream.on("end", () => callback(failure));
      stream.resume();
      return;
    }
    simpleParser(stream).then(
      (parsed) => {
        this.received.push({
          envelope: {
            from: envelope.mailFrom ? envelope.mailFrom.address : "",
            to: envelope.rcptTo.map((recipient) => recipient.address),
          },
          from: { name: parsed.from?.value[0]?.name ?? "", address: parsed.from?.value[0]?.address ?? "" },
          to: [parsed.to ?? []]
            .flat()
            .map((address) => address.text)
            .join(", "),
          replyTo: parsed.replyTo?.text,
          subject: parsed.subject ?? "",
          text: parsed.text ?? "",
          html: parsed.html || "",
          attachments: parsed.attachments.map((file) => ({
            filename: file.filename ?? "",
            contentType: file.contentType,
            content: file.content.toString("utf8"),
          })),
        });
        callback();
      },
      (error: Error) => callback(error),
    );
  }

  #failure(command: FailingCommand): Error | null {
    const index = this.#failures.findIndex((failure) => failure.command === command);
    if (index < 0) return null;
    const [failure] = this.#failures.splice(index, 1);
    const code = failure?.code ?? 451;
    return replyError(code, code < 500 ? "4.3.0 Try again later" : "5.7.1 Refused");
  }
}

function replyError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}
