import path from "node:path";
import SQLite from "better-sqlite3";
import { errorCode, StartupError } from "./startup-error.js";
import { ensureWritableFiles, ensureWritableFolder, type PathSetting } from "./writable-folder.js";

/**
 * Opens (creating it and its folder when missing) a SQLite database file in WAL mode. Setting WAL is the first
 * write, so a file that cannot be written fails here, at start-up, rather than at the first message.
 * @throws StartupError naming `setting` when the folder or the file cannot be used.
 */
export function openSqliteFile(file: string, setting: PathSetting): SQLite.Database {
  ensureWritableFolder(path.dirname(file), setting);
  ensureWritableFiles([file, `${file}-wal`, `${file}-shm`], setting);
  let database: SQLite.Database | undefined;
  try {
    database = new SQLite(file);
    // WAL lets readers run while a write commits.
    database.pragma("journal_mode = WAL");
    return database;
  } catch (error) {
    database?.close();
    throw sqliteOpenError(error, file, setting);
  }
}

/** The failures of opening a database file an operator can act on, as a {@link StartupError}; others unchanged. */
function sqliteOpenError(error: unknown, file: string, setting: PathSetting): unknown {
  const code = errorCode(error) ?? "";
  const shown = `${setting.name}=${setting.value}`;
  const fixed = (problem: string, fix: string, kind: "configuration" | "unavailable" = "configuration") =>
    new StartupError(setting.name, `${shown}: ${file} ${problem} (${code}): ${fix}.`, kind, { cause: error });
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_PERM")) {
    return fixed(
      "cannot be written",
      `give this user write access to it and its folder, or set ${setting.name} to a folder chatbridge can write to`,
    );
  }
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    return fixed(
      "is not a readable SQLite database",
      `restore it from a backup or move it away, or set ${setting.name} to another folder`,
    );
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return fixed("is locked by another program", "stop that program, or wait and start again", "unavailable");
  }
  return error;
}
