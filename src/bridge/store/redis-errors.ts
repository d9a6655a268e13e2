import { maskPassword } from "../../common/masked-url.js";
import { errorCode, firstLine, StartupError } from "../../common/startup-error.js";

/**
 * Why the Redis of STORE_URL could not be connected to, as one line naming STORE_URL (its password masked) and the
 * fix. Redis replies carry their code as the first word of the message (`NOAUTH …`, `WRONGPASS …`); system
 * errors carry it as `code`. node-redis wraps the reason in an error with `originalError`.
 */
export function redisConnectError(error: unknown, url: string, connectTimeoutMs: number): StartupError {
  const reason = (error as { originalError?: unknown } | null)?.originalError ?? error;
  const shown = `STORE_URL=${maskPassword(url)}`;
  const code = errorCode(reason);
  const replyCode = code === undefined ? /^([A-Z]+) /.exec(firstLine(reason))?.[1] : undefined;
  const hasPassword = URL.canParse(url) && new URL(url).password !== "";
  const failed = (problem: string, fix: string, kind: "configuration" | "unavailable") =>
    new StartupError("STORE_URL", `${shown} ${problem}: ${fix}.`, kind, { cause: reason });
  switch (replyCode ?? code) {
    case "ECONNREFUSED":
      return failed(
        "cannot be reached: connection refused",
        "start Redis, or correct the host and port in STORE_URL",
        "unavailable",
      );
    case "ENOTFOUND":
      return failed("names a host that does not exist (ENOTFOUND)", "correct the host in STORE_URL", "configuration");
    case "ETIMEDOUT":
      return failed(
        `cannot be reached: no answer within ${connectTimeoutMs / 1000} s`,
        "check the host, the port and the firewall, and that Redis is running there",
        "unavailable",
      );
    case "EAI_AGAIN":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return failed(
        `cannot be reached (${code})`,
        "check the host and the network, and that Redis is running",
        "unavailable",
      );
    case "NOAUTH":
      return failed(
        "was refused: this Redis requires a password (NOAUTH)",
        "put it in STORE_URL as redis://:password@host:port",
        "configuration",
      );
    case "WRONGPASS":
      return failed(
        "was refused: wrong user name or password (WRONGPASS)",
        "correct the credentials in STORE_URL",
        "configuration",
      );
    case "ERR":
      if (hasPassword && /\bAUTH\b/.test(firstLine(reason))) {
        return failed(
          "was refused: this Redis has no password set, but STORE_URL gives one (ERR AUTH)",
          "remove the password from STORE_URL, or set one on the server (requirepass)",
          "configuration",
        );
      }
      break;
  }
  if (code?.startsWith("ERR_SSL") || code?.includes("CERT")) {
    return failed(
      `failed the TLS handshake (${code})`,
      "use redis:// for a server without TLS and rediss:// for one with TLS, and check the server's certificate",
      "configuration",
    );
  }
  if (/^connection timeout$/i.test(firstLine(reason))) {
    return failed(
      `cannot be reached: no connection within ${connectTimeoutMs / 1000} s`,
      "check the host, the port and the firewall, and that Redis is running there",
      "unavailable",
    );
  }
  return failed(
    `cannot be used (${firstLine(reason)})`,
    "check that STORE_URL points to a running Redis server",
    "unavailable",
  );
}
