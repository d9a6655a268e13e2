import { describe, expect, it } from "vitest";
import { markdownToWebHtml, measureWebHtml, plainToWebHtml } from "../../../adapters/web/format.js";
import { webHtmlProblem } from "./html-rules.js";

const link = (href: string, label = href) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${label}</a>`;

describe("markdownToWebHtml", () => {
  it("renders emphasis, code, links and bare addresses, leaving what is not markup as text", () => {
    expect(markdownToWebHtml("**Loft** *near* ~~the~~ `park`: [see](https://homes.example.com/a_b) 2 * 3")).toBe(
      `<strong>Loft</strong> <em>near</em> <del>the</del> <code>park</code>: ${link("https://homes.example.com/a_b", "see")} 2 * 3`,
    );
    // A listing ends in its address; the sentence's full stop is not part of it.
    expect(markdownToWebHtml("Details: https://homes.example.com/listing/mls246165.")).toBe(
      `Details: ${link("https://homes.example.com/listing/mls246165")}.`,
    );
    expect(markdownToWebHtml("snake_case_name and an unbalanced **star")).toBe(
      "snake_case_name and an unbalanced **star",
    );
  });

  it("draws tables, fences, lists, quotes, headings and rules from the shared block parser", () => {
    expect(markdownToWebHtml("| Home | Price |\n|--|--:|\n| Loft | **300** |")).toBe(
      '<table><thead><tr><th>Home</th><th class="right">Price</th></tr></thead>' +
        '<tbody><tr><td>Loft</td><td class="right"><strong>300</strong></td></tr></tbody></table>',
    );
    expect(markdownToWebHtml("1. Run it:\n\t```bash\n\tls -la\n\t```")).toBe(
      '1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>',
    );
    expect(markdownToWebHtml("## Homes\n\n- one\n  - two\n\n> said\n\n---")).toBe(
      '<strong class="heading">Homes</strong>\n\n• one\n  • two\n\n<blockquote>said</blockquote>\n\n<hr>',
    );
  });

  it("escapes everything the chatbot writes and links only to http(s) and mailto", () => {
    const hostile = [
      "<img src=x onerror=\"alert(1)\"> & 'quotes'",
      "[click](javascript:alert(1)) [data](data:text/html,<b>x</b>) <javascript:alert(1)>",
      '[ok](https://a.example/?q="><script>) <mailto:agents@example.com>',
      "```\n</code></pre><script>alert(1)</script>\n```",
      "| <b> | x |\n|--|--|\n| \" | ' |",
    ].join("\n\n");
    const html = markdownToWebHtml(hostile);
    expect(webHtmlProblem(html)).toBeUndefined();
    expect(html).not.toMatch(/<(img|script|b)\b/);
    expect(html).not.toMatch(/href="(javascript|data):/);
    expect(html).toContain(link("mailto:agents@example.com"));
    expect(html).toContain('href="https://a.example/?q=&quot;&gt;&lt;script&gt;"');
  });

  it("shows the bridge's plain texts as they are, escaped", () => {
    expect(plainToWebHtml(" Sorry, <that> failed & **stays** as written ")).toBe(
      "Sorry, &lt;that&gt; failed &amp; **stays** as written",
    );
  });

  it("measures what the visitor reads, not the markdown", () => {
    expect(measureWebHtml("**Loft** & [see](https://homes.example.com/listing/1)")).toBe("Loft & see".length);
  });
});
