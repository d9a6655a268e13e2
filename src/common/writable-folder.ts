import { accessSync, constants, existsSync, lstatSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { errorCode, firstLine, StartupError } from "./startup-error.js";

/** The variable a folder or file comes from, as messages show it: `DATA_DIR=/srv/chatbridge`. */
export interface PathSetting {
  name: string;
  value: string;
}

const shown = (setting: PathSetting) => `${setting.name}=${setting.value}`;
const fix = (setting: PathSetting) => `set ${setting.name} to a folder chatbridge can write to`;
const user = () => (process.getuid ? `this user (uid ${process.getuid()})` : "this user");

/**
 * Makes sure `dir` is a folder this process can write to, creating the missing levels one at a time.
 *
 * Not `mkdirSync(dir, { recursive: true })`: Node's recursive mkdir retries forever — at 100% CPU, with the event
 * loop blocked so that not even SIGTERM is handled — when mkdir answers ENOENT for a folder whose parent exists,
 * which is what /proc, /sys and some network or overlay file systems do. Here every answer is final.
 * @throws StartupError naming the setting, what is wrong with the path and the fix.
 */
export function ensureWritableFolder(dir: string, setting: PathSetting): void {
  const target = path.resolve(dir);
  const missing: string[] = [];
  let existing = target;
  for (;;) {
    let kind: ReturnType<typeof pathKind>;
    try {
      kind = pathKind(existing);
    } catch (error) {
      throw folderError(error, existing, setting, "create");
    }
    if (kind === "folder") break;
    if (kind === "other") {
      throw new StartupError(
        setting.name,
        existing === target
          ? `${shown(setting)} is a file, not a folder: ${fix(setting)}.`
          : `${shown(setting)} cannot be created because ${existing} is a file: ${fix(setting)}.`,
        "configuration",
      );
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      throw folderError(error, folder, setting, "create");
    }
  }
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw folderError(error, target, setting, "write");
  }
}

/**
 * Checks that the files of `files` that exist can be written (a database copied in by another user, a volume
 * restored read-only); SQLite would otherwise open them read-only and fail at the first write.
 * @throws StartupError naming the setting, the file and the fix.
 */
export function ensureWritableFiles(files: string[], setting: PathSetting): void {
  for (const file of files) {
    if (!existsSync(file)) continue;
    if (statSync(file).isDirectory()) {
      throw new StartupError(
        setting.name,
        `${shown(setting)} holds a folder ${file} where chatbridge keeps a file: move it away, or set ${setting.name} to another folder.`,
        "configuration",
      );
    }
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (error) {
      const code = errorCode(error);
      const what = code === "EROFS" ? "which is on a read-only file system" : `which ${user()} cannot write`;
      throw new StartupError(
        setting.name,
        `${shown(setting)} holds ${file}, ${what}: give this user write access to it (chown/chmod), or set ${setting.name} to another folder.`,
        "configuration",
        { cause: error },
      );
    }
  }
}

/** What is at `file`: a folder, something else, or nothing (a dangling symbolic link counts as nothing). */
function pathKind(file: string): "folder" | "other" | "none" {
  try {
    return statSync(file).isDirectory() ? "folder" : "other";
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return "none";
    // ENOTDIR: a level above is a file; the walk up finds it.
    if (code === "ENOTDIR") return "none";
    throw error;
  }
}

function folderError(error: unknown, folder: string, setting: PathSetting, step: "create" | "write"): StartupError {
  const code = errorCode(error);
  const parent = path.dirname(folder);
  let problem: string;
  switch (code) {
    case "EACCES":
    case "EPERM":
      problem =
        step === "write"
          ? `is not writable by ${user()}: give it write access (chown/chmod), or ${fix(setting)}`
          : `cannot be created: ${user()} may not create folders in ${parent}: create it with write access for this user, or ${fix(setting)}`;
      break;
    case "EROFS":
      problem = `is on a read-only file system: ${fix(setting)}, e.g. a mounted volume`;
      break;
    case "ENOENT":
      problem = lstatSync(folder, { throwIfNoEntry: false })?.isSymbolicLink()
        ? `cannot be created: ${folder} is a symbolic link to a missing folder: create its target, or ${fix(setting)}`
        : `cannot be created: ${parent} does not take new folders (a special file system such as /proc or /sys): ${fix(setting)}`;
      break;
    case "EEXIST":
      problem = `cannot be created: ${folder} is a symbolic link to a missing folder: create its target, or ${fix(setting)}`;
      break;
    default:
      problem = `cannot be used (${firstLine(error)}): ${fix(setting)}`;
  }
  // A folder named by a URL (STORE_URL=sqlite:///…) is shown too.
  const where = step === "write" && path.resolve(setting.value) !== folder ? ` (folder ${folder})` : "";
  return new StartupError(setting.name, `${shown(setting)}${where} ${problem}.`, "configuration", { cause: error });
}
