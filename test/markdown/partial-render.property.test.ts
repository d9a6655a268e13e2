/**
 * The streaming view and the renderers together: for many generated chatbot answers, every safe prefix of a growing
 * answer (`safePartialMarkdown`) renders on every channel (Telegram, Slack, WhatsApp, the web chat) as valid platform markup with no markdown marker left on
 * screen, and the channels agree on the block structure (tables, code blocks, lists).
 */

import { describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../../adapters/slack/format.js";
import { markdownToTelegramHtml } from "../../adapters/telegram/format.js";
import { markdownToWebHtml } from "../../adapters/web/format.js";
import { markdownToWhatsApp } from "../../adapters/whatsapp/format.js";
import { safePartialMarkdown } from "../../src/bridge/reply/partial-markdown.js";
import { seededRandom } from "../../src/server/seeded-random.js";
import { telegramHtmlProblem } from "../adapters/telegram/html-rules.js";
import { webHtmlProblem } from "../adapters/web/html-rules.js";

const WORDS = ["price", "loft", "garden", "two", "rooms", "near", "the", "park", "Madrid", "ok", "día", "🏠"];

/** A generator of chatbot-like answers: words hold no markdown character, so any marker in the output is markup. */
function answers(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = (n: number) => Array.from({ length: 1 + Math.floor(random() * n) }, () => pick(WORDS)).join(" ");
  const inline = (depth = 0): string => {
    const kind = Math.floor(random() * (depth > 1 ? 1 : 8));
    switch (kind) {
      case 1:
        return `**${words(2)}**`;
      case 2:
        return `*${words(3)}*`;
      case 3:
        return `_${words(2)}_`;
      case 4:
        return `~~${words(2)}~~`;
      case 5:
        return `\`${words(2)}\``;
      case 6:
        return `[${random() < 0.5 ? words(2) : `**${words(2)}**`}](https://example.com/a_b?q=1)`;
      case 7:
        return `**${words(2)} *${words(2)}* ${words(1)}**`;
      default:
        return words(4);
    }
  };
  const sentence = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => inline()).join(" ");
  const block = (): string => {
    switch (Math.floor(random() * 9)) {
      case 0:
        return `${"#".repeat(1 + Math.floor(random() * 3))} ${sentence()}`;
      case 1:
        return Array.from({ length: 2 + Math.floor(random() * 3) }, (_, k) =>
          k === 1 && random() < 0.5 ? `  - ${sentence()}` : `- ${sentence()}`,
        ).join("\n");
      case 2:
        return `1. ${sentence()}\n2. ${sentence()}`;
      case 3:
        return `\`\`\`js\nconst ${pick(WORDS.slice(0, 5))} = 1;\nreturn a * b;\n\`\`\``;
      case 4:
        // A fence indented by a tab, under a list item or on its own.
        return random() < 0.5
          ? `1. ${sentence()}\n\t\`\`\`bash\n\tls -la *\n\t\`\`\``
          : `\t\`\`\`\n\tcode_here\n\t\`\`\``;
      case 5: {
        const dashes = random() < 0.5 ? "--" : "---";
        return `| ${words(1)} | ${words(1)} |\n|${dashes}|${dashes}|\n| ${inline()} | ${words(2)} |`;
      }
      case 6:
        return `> ${sentence()}\n> ${sentence()}`;
      default:
        return sentence();
    }
  };
  return () => Array.from({ length: 1 + Math.floor(random() * 4) }, block).join("\n\n");
}

/** Text shown outside code, links and the platform's own markup. */
function telegramVisible(html: string): string {
  return html
    .replace(/<(pre|code)[^>]*>[\s\S]*?<\/\1>/g, "code")
    .replace(/<[^>]+>/g, "")
    .replace(/&(lt|gt|amp|quot);/g, " ");
}

function chatVisible(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, "code")
    .replace(/`[^`\n]+`/g, "code")
    .replace(/<[^>|]+(\|[^>]*)?>/g, "link")
    .replace(/\(https?:\/\/[^\s)]+\)/g, "")
    .replace(/https?:\/\/\S+/g, "");
}

/** Markdown markers that must never reach the screen: emphasis pairs, links, fences, table pipes. */
const RAW = /\*\*|__|~~|```|\]\(|\|/;

/** Prefixes of `text` as a stream shows them, every few characters. */
function prefixes(text: string, step: number): string[] {
  const out: string[] = [];
  for (let end = 1; end <= text.length; end += step) out.push(text.slice(0, end));
  out.push(text);
  return out;
}

describe("every safe prefix of a streamed answer, on every channel", () => {
  it("renders valid markup with no raw markdown markers", () => {
    const next = answers(20_251_125);
    for (let run = 0; run < 300; run++) {
      const answer = next();
      for (const prefix of prefixes(answer, 7)) {
        const safe = safePartialMarkdown(prefix);
        const where = `${JSON.stringify(prefix)} → ${JSON.stringify(safe)}`;
        const html = markdownToTelegramHtml(safe);
        const problem = telegramHtmlProblem(html);
        if (problem) throw new Error(`Telegram: ${where}: ${problem} in ${JSON.stringify(html)}`);
        const telegram = telegramVisible(html);
        if (RAW.test(telegram.replace(/^.*│.*$/gm, "").replace(/ \| /g, " ")))
          throw new Error(`Telegram: ${where}: raw markers in ${JSON.stringify(html)}`);
        const web = markdownToWebHtml(safe);
        const webProblem = webHtmlProblem(web);
        if (webProblem) throw new Error(`web: ${where}: ${webProblem} in ${JSON.stringify(web)}`);
        if (RAW.test(telegramVisible(web))) throw new Error(`web: ${where}: raw markers in ${JSON.stringify(web)}`);
        for (const [name, render] of [
          ["Slack", markdownToMrkdwn],
          ["WhatsApp", markdownToWhatsApp],
        ] as const) {
          const rendered = render(safe);
          if (RAW.test(chatVisible(rendered)))
            throw new Error(`${name}: ${where}: raw markers in ${JSON.stringify(rendered)}`);
        }
      }
    }
  });
});

describe("one block structure on every channel", () => {
  const table = "| Home | Price |\n|--|--|\n| Loft | 300 |";
  const tabFence = "1. Run it:\n\t```bash\n\tls -la\n\t```";

  it("reads `|--|--|` as a table everywhere", () => {
    expect(markdownToTelegramHtml(table)).toBe("Home | Price\nLoft | 300");
    expect(markdownToMrkdwn(table)).toBe("```\nHome │ Price\n─────┼──────\nLoft │ 300\n```");
    expect(markdownToWhatsApp(table)).toBe("```\nHome │ Price\n─────┼──────\nLoft │ 300\n```");
    expect(markdownToWebHtml(table)).toBe(
      "<table><thead><tr><th>Home</th><th>Price</th></tr></thead><tbody><tr><td>Loft</td><td>300</td></tr></tbody></table>",
    );
  });

  it("reads a tab-indented fence as a code block everywhere", () => {
    expect(markdownToTelegramHtml(tabFence)).toBe('1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>');
    expect(markdownToMrkdwn(tabFence)).toBe("1. Run it:\n```\nls -la\n```");
    expect(markdownToWhatsApp(tabFence)).toBe("1. Run it:\n```\nls -la\n```");
    expect(markdownToWebHtml(tabFence)).toBe('1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>');
  });

  it("closes a tab-indented fence of a growing answer as the renderers read it", () => {
    const safe = safePartialMarkdown("1. Run it:\n\t```bash\n\tls -la");
    expect(safe).toBe("1. Run it:\n\t```bash\n\tls -la\n\t```");
    expect(markdownToTelegramHtml(safe)).toBe('1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>');
  });
});
