import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const GUARD = fileURLToPath(new URL("../.ci/self-contained.mjs", import.meta.url));

/** Runs the guard on `root`; resolves with its exit code and output. */
async function guard(root?: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [GUARD, ...(root ? [root] : [])]);
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, out: failed.stdout };
  }
}

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("the repository is self-contained", () => {
  it("reads nothing outside itself", async () => {
    const { code, out } = await guard();
    expect(out).toContain("nothing reads outside the repository");
    expect(code).toBe(0);
  });

  it("is checked: a path above the root or a mention of the sibling folder fails with its file and line", async () => {
    scratch = mkdtempSync(path.join(tmpdir(), "self-contained-"));
    mkdirSync(path.join(scratch, "test", "adapters"), { recursive: true });
    // Spelled in pieces so that this file does not trip the guard it tests.
    const above = `${"../".repeat(3)}elsewhere/update.json`;
    const sibling = `${"../"}shared/spec.md`;
    writeFileSync(
      path.join(scratch, "test", "adapters", "replay.test.ts"),
      `const ok = new URL("../fixtures/a.json", import.meta.url);\nconst bad = new URL("${above}", import.meta.url);\n`,
    );
    writeFileSync(path.join(scratch, "README.md"), `The spec:\nsee ${sibling}\n`);
    const { code, out } = await guard(scratch);
    expect(code).toBe(1);
    expect(out).toContain(`test/adapters/replay.test.ts:2: "${above}" leaves the repository`);
    expect(out).toContain("README.md:2: refers to a folder beside the repository");
    expect(out).not.toContain("replay.test.ts:1");
  });
});
