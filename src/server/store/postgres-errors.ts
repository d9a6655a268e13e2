import { maskPassword } from "../../common/masked-url.js";
import { errorCode, firstLine, StartupError } from "../../common/startup-error.js";

/**
 * Why the PostgreSQL of DATABASE_URL could not be connected to, as one line naming DATABASE_URL (its password
 * masked) and the fix. PostgreSQL's refusals carry their SQLSTATE as `code` (28P01 wrong password, 28000 unknown
 * role or no pg_hba.conf entry, 3D000 no such database); network failures carry the system error's code.
 */
export function postgresConnectError(error: unknown, url: string, connectTimeoutMs: number): StartupError {
  const shown = `DATABASE_URL=${maskPassword(url)}`;
  const code = errorCode(error);
  const reason = firstLine(error);
  const failed = (problem: string, fix: string, kind: "configuration" | "unavailable") =>
    new StartupError("DATABASE_URL", `${shown} ${problem}: ${fix}.`, kind, { cause: error });
  switch (code) {
    case "28P01":
      return failed(
        `was refused: ${reason} (28P01)`,
        "correct the user name and password in DATABASE_URL",
        "configuration",
      );
    case "28000":
      return failed(
        `was refused: ${reason} (28000)`,
        "correct the user in DATABASE_URL, or let PostgreSQL accept it (CREATE ROLE … LOGIN, pg_hba.conf)",
        "configuration",
      );
    case "3D000": {
      const name = URL.canParse(url) ? decodeURIComponent(new URL(url).pathname.slice(1)) : "";
      return failed(
        `names a database that does not exist: ${reason} (3D000)`,
        `create it${name ? ` (createdb ${name})` : ""}, or correct the database name in DATABASE_URL`,
        "configuration",
      );
    }
    case "53300":
    case "57P03":
      return failed(
        `cannot be used right now: ${reason} (${code})`,
        "wait for PostgreSQL and start again",
        "unavailable",
      );
    case "ECONNREFUSED":
      return failed(
        "cannot be reached: connection refused",
        "start PostgreSQL, or correct the host and port in DATABASE_URL",
        "unavailable",
      );
    case "ENOTFOUND":
      return failed(
        "names a host that does not exist (ENOTFOUND)",
        "correct the host in DATABASE_URL",
        "configuration",
      );
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "EAI_AGAIN":
      return failed(
        `cannot be reached (${code})`,
        "check the host and the network, and that PostgreSQL is running",
        "unavailable",
      );
  }
  // pg reports its own connection timeout without a code.
  if (/timeout/i.test(reason)) {
    return failed(
      `cannot be reached: no answer within ${connectTimeoutMs / 1000} s`,
      "check the host, the port and the firewall, and that PostgreSQL is running there",
      "unavailable",
    );
  }
  return failed(`cannot be used (${reason})`, "check DATABASE_URL and that PostgreSQL is running", "unavailable");
}
