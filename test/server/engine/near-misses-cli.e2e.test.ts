import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.js";
import { terminal } from "../../support/terminal.js";

/** The question of issue 16, as a new user typed it on the demo. */
const ISSUE_QUESTION = "Do you have 3 bedroom houses for sale in Austin under 500k?";

describe("near misses through chatbridge ask", () => {
  it("answers the issue's question with the $537,000 4-bedroom, 7% over the budget", async () => {
    // The whole path a new user takes: `chatbridge ask` against a fresh demo in SQLite.
    const t = terminal({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-near-miss-")) });
    expect(await run(["ask", "--json", ISSUE_QUESTION], t.io)).toBe(0);
    const { answer } = JSON.parse(t.out()) as { answer: string };
    expect(answer).toBe(
      [
        "Sorry, I couldn't find any houses for sale in Austin with 3+ bedrooms up to $500,000.",
        "Nothing under $500,000; the closest is $537,000 — 7% over your budget:",
        [
          "1. Townhouse for sale · $537,000 · 4 beds · 3.5 baths · 1,530 sq ft",
          "   2264 Willow Blvd, Austin, TX 78707",
          "   https://homes.example.com/listing/mls245480",
        ].join("\n"),
      ].join("\n\n"),
    );
  });
});
