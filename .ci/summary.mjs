// Prints "vitest: N passed, N failed, N skipped" from vitest's JSON report.
import { readFileSync } from "node:fs";

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  console.log(`vitest: no report at ${file} (${error.message}); the suite did not run`);
  process.exit(1);
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numTotalTests > 0 && report.numFailedTests === 0 && report.success !== false ? 0 : 1);
