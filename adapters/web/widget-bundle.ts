import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The folder of chatbridge's package.json, from the sources (tests) or from `dist/` (npm start) alike. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where `npm run build` writes the widget's bundle (adapters/web/build-widget.ts). */
export const WIDGET_FILE = path.join(packageRoot(), "dist", "widget", "widget.js");

/** The widget's script as served: its bytes, gzipped once, and an ETag. */
export interface WidgetScript {
  code: Buffer;
  gzipped: Buffer;
  etag: string;
}

/**
 * Reads the widget's bundle once, at start. Undefined when it was not built: `/widget.js` then answers 503 with the
 * fix (run `npm run build`), and the page at `/` says so.
 */
export function readWidgetScript(file = WIDGET_FILE): WidgetScript | undefined {
  if (!existsSync(file)) return undefined;
  const code = readFileSync(file);
  const gzipped = gzipSync(code, { level: 9 });
  return { code, gzipped, etag: `"${createHash("sha256").update(code).digest("base64url").slice(0, 22)}"` };
}
