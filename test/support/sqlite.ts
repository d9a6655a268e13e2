import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A new empty directory to use as DATA_DIR for a SQLite database. */
export function tempDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), "chatbridge-store-"));
}

/** Deletes a directory made by {@link tempDataDir}, with the database files in it. */
export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}
