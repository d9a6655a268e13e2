import { existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StartupError } from "../../src/common/startup-error.js";
import { ensureWritableFiles, ensureWritableFolder } from "../../src/common/writable-folder.js";

const scratch = () => mkdtempSync(path.join(tmpdir(), "chatbridge-folder-"));
const setting = (value: string) => ({ name: "DATA_DIR", value });

/** The StartupError `action` throws (the test fails when it throws nothing or something else). */
function failure(action: () => void): StartupError {
  try {
    action();
  } catch (error) {
    if (error instanceof StartupError) return error;
    throw error;
  }
  throw new Error("expected a StartupError");
}

describe("ensureWritableFolder", () => {
  it("creates the missing levels", () => {
    const dir = path.join(scratch(), "a", "b", "c");
    ensureWritableFolder(dir, setting(dir));
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  it("fails at once where mkdir answers ENOENT under a folder that exists (/proc), naming the setting", () => {
    const started = Date.now();
    const error = failure(() => ensureWritableFolder("/proc/chatbridge/data", setting("/proc/chatbridge/data")));
    expect(error).toMatchObject({ setting: "DATA_DIR", kind: "configuration" });
    expect(error.message).toContain("/proc does not take new folders");
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("names a symbolic link to a missing folder", () => {
    const link = path.join(scratch(), "data");
    symlinkSync(path.join(path.dirname(link), "gone"), link);
    expect(failure(() => ensureWritableFolder(link, setting(link))).message).toBe(
      `DATA_DIR=${link} cannot be created: ${link} is a symbolic link to a missing folder: create its target, or set DATA_DIR to a folder chatbridge can write to.`,
    );
  });
});

describe("ensureWritableFiles", () => {
  it("skips files that do not exist yet, and names a folder where a file belongs", () => {
    const dir = scratch();
    const file = path.join(dir, "chatbridge.db");
    ensureWritableFiles([file], setting(dir));
    expect(existsSync(file)).toBe(false);
    mkdirSync(file);
    expect(failure(() => ensureWritableFiles([file], setting(dir))).message).toBe(
      `DATA_DIR=${dir} holds a folder ${file} where chatbridge keeps a file: move it away, or set DATA_DIR to another folder.`,
    );
  });
});
