// Fails when a file of the repository reaches outside it: a mention of the sibling `shared` folder, or a relative
// path in code (a `new URL(…, import.meta.url)`, an import) that resolves above the repository's root.
// Usage: node .ci/self-contained.mjs [root]   (default: the repository this script is in)
// A clean clone has nothing beside it, so such a reference passes on one machine and breaks everywhere else;
// .ci/run also runs the suite from a copy in an empty folder, which proves what this cheap scan cannot see.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));

/** Folders and files that are not the repository's own (installed, built, generated or local). */
const SKIPPED = new Set([".git", "node_modules", "dist", "data", "reports", "coverage", ".env"]);
/** Files whose string literals are paths resolved against the file's own folder. */
const CODE = /\.(?:[cm]?[jt]s|tsx?)$/;
/** The reference material beside the checkout, spelled so that this file does not match itself. */
const SIBLING = new RegExp(`\\.\\./(?:\\.\\./)*${"shared"}\\b`);
/** A string literal that is a relative path: `.`, `..`, `./x` or `../x`. */
const RELATIVE_LITERAL = /(["'`])(\.\.?(?:\/[^"'`\s$]*)?)\1/g;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.endsWith(".log")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

const problems = [];
for (const file of files(root)) {
  if (statSync(file).size > 1_000_000) continue;
  const bytes = readFileSync(file);
  if (bytes.subarray(0, 8000).includes(0)) continue; // binary (media fixtures)
  const where = path.relative(root, file);
  bytes
    .toString("utf8")
    .split("\n")
    .forEach((line, index) => {
      if (SIBLING.test(line)) problems.push(`${where}:${index + 1}: refers to a folder beside the repository`);
      if (!CODE.test(file)) return;
      for (const [, , literal] of line.matchAll(RELATIVE_LITERAL)) {
        const target = path.relative(root, path.resolve(path.dirname(file), literal));
        if (target === ".." || target.startsWith(`..${path.sep}`) || path.isAbsolute(target)) {
          problems.push(`${where}:${index + 1}: "${literal}" leaves the repository`);
        }
      }
    });
}

if (problems.length > 0) {
  console.log(`self-contained: ${problems.length} reference(s) outside the repository:`);
  for (const problem of problems) console.log(`  ${problem}`);
  process.exit(1);
}
console.log("self-contained: nothing reads outside the repository");
