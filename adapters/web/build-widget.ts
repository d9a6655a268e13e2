import { mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild-wasm";
import { WIDGET_FILE } from "./widget-bundle.js";

/** The widget's entry point, beside this file in the sources (the build bundles TypeScript, not dist's output). */
function entryPoint(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromSources = path.join(here, "widget", "main.ts");
  return statSync(fromSources, { throwIfNoEntry: false })
    ? fromSources
    : path.join(here, "..", "..", "..", "adapters", "web", "widget", "main.ts");
}

/**
 * Bundles the widget (adapters/web/widget/, TypeScript for the browser) into one minified script with esbuild's
 * WebAssembly build (no native binary at install): an IIFE for every browser of the last years (ES2020), no
 * dependency, nothing loaded from another host. Returns its size, raw and gzipped.
 */
export async function buildWidget(outFile = WIDGET_FILE): Promise<{ bytes: number; gzipBytes: number }> {
  mkdirSync(path.dirname(outFile), { recursive: true });
  await build({
    entryPoints: [entryPoint()],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    outfile: outFile,
    legalComments: "none",
    logLevel: "silent",
  });
  const code = readFileSync(outFile);
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

// `node dist/adapters/web/build-widget.js` (npm run build): builds and prints the size.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { bytes, gzipBytes } = await buildWidget();
  process.stdout.write(`widget.js: ${(bytes / 1024).toFixed(1)} KiB, ${(gzipBytes / 1024).toFixed(1)} KiB gzipped\n`);
}
