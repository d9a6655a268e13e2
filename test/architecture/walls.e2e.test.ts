import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const BIOME = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@biomejs/biome/package.json")),
  "bin",
  "biome",
);

/** The rule each import breaks, as Biome reports it with the repository's biome.json, or [] when none does. */
async function lint(dir: string, file: string, source: string): Promise<string[]> {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), source);
  const { stdout } = await run(BIOME, ["lint", "--vcs-enabled=false", "--reporter=json", file], { cwd: dir }).catch(
    (failed: { stdout: string }) => failed,
  );
  const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
    diagnostics: { category: string; message: string }[];
  };
  return report.diagnostics.filter((d) => d.category === "lint/style/noRestrictedImports").map((d) => d.message);
}

describe("the walls between the core, the features, the plugins and the mail", () => {
  let dir: string;
  beforeAll(() => {
    // A scratch project with the repository's rules and files to import, so that nothing is written into src/.
    dir = mkdtempSync(path.join(tmpdir(), "chatbridge-walls-"));
    copyFileSync(path.join(ROOT, "biome.json"), path.join(dir, "biome.json"));
    for (const target of [
      "src/features/handoff/index.ts",
      "src/bridge/channel.ts",
      "src/bridge/store/key-prefixes.ts",
      "src/plugin/plugin-api.ts",
      "src/markdown/blocks.ts",
      "src/mail/outbox-keys.ts",
    ]) {
      mkdirSync(path.dirname(path.join(dir, target)), { recursive: true });
      writeFileSync(path.join(dir, target), "export const x = 1;\n");
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the core from naming a feature", async () => {
    const broken = await lint(
      dir,
      "src/bridge/probe.ts",
      'import { x } from "../features/handoff/index.js";\n\nexport const y = x;\n',
    );
    expect(broken).toEqual([expect.stringMatching(/^The core never names a feature/)]);
    expect(await lint(dir, "src/bridge/fine.ts", 'import { x } from "./channel.js";\n\nexport const y = x;\n')).toEqual(
      [],
    );
  }, 30_000);

  it("lets an adapter import only the plugin surface and the markdown parser", async () => {
    const inside = 'import { x } from "../../src/bridge/channel.js";\n\nexport const y = x;\n';
    expect(await lint(dir, "adapters/probe/outbound.ts", inside)).toEqual([
      expect.stringMatching(/^A channel plugin imports only/),
    ]);
    const surface = [
      'import { x } from "../../src/plugin/plugin-api.js";',
      'import { x as z } from "../../src/markdown/blocks.js";',
      "",
      "export const y = [x, z];",
      "",
    ].join("\n");
    expect(await lint(dir, "adapters/probe/fine.ts", surface)).toEqual([]);
  }, 30_000);

  it("keeps the mail apart from the bridge that uses it", async () => {
    const source = 'import { x } from "../bridge/store/key-prefixes.js";\n\nexport const y = x;\n';
    expect(await lint(dir, "src/mail/probe.ts", source)).toEqual([expect.stringMatching(/^src\/mail\/ sends/)]);
    const fine = 'import { x } from "../mail/outbox-keys.js";\n\nexport const y = x;\n';
    expect(await lint(dir, "src/bridge/mail-user.ts", fine)).toEqual([]);
  }, 30_000);
});
