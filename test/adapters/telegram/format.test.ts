import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  markdownToTelegramHtml as html,
  measureMarkdown,
  safeHref,
  visibleLength,
} from "../../../adapters/telegram/format.js";
import { seededRandom } from "../../../src/server/seeded-random.js";
import { telegramHtmlProblem } from "./html-rules.js";

describe("markdownToTelegramHtml: inline", () => {
  it.each([
    ["**bold** and __bold__", "<b>bold</b> and <b>bold</b>"],
    ["*italic* and _italic_", "<i>italic</i> and <i>italic</i>"],
    ["~~gone~~", "<s>gone</s>"],
    ["***both***", "<i><b>both</b></i>"],
    ["**bold *and italic* inside**", "<b>bold <i>and italic</i> inside</b>"],
    ["*foo**bar*", "<i>foo**bar</i>"],
    ["_a_b_", "<i>a_b</i>"],
    ["`x < y`", "<code>x &lt; y</code>"],
    ["``a ` b``", "<code>a ` b</code>"],
    ["` padded `", "<code>padded</code>"],
    ["\\*not italic\\* and \\_no\\_", "*not italic* and _no_"],
    ["line one\nline two", "line one\nline two"],
    ["**across\nlines**", "<b>across\nlines</b>"],
  ])("%j → %j", (markdown, expected) => {
    expect(html(markdown)).toBe(expected);
  });

  it("keeps what is not emphasis literal: arithmetic, snake_case, a lone tilde, unbalanced markers", () => {
    expect(html("2 * 3 * 4 = 24")).toBe("2 * 3 * 4 = 24");
    expect(html("call snake_case_name()")).toBe("call snake_case_name()");
    expect(html("about ~100 m² ~ 120")).toBe("about ~100 m² ~ 120");
    expect(html("**unbalanced")).toBe("**unbalanced");
    expect(html("half **bold and *italic")).toBe("half **bold and *italic");
    expect(html("a ** b ** c")).toBe("a ** b ** c");
    expect(html("`never closed")).toBe("`never closed");
    expect(html("~~~")).toBe("");
  });

  it("escapes &, < and > everywhere, also input that looks like HTML or entities", () => {
    expect(html("a < b & c > d")).toBe("a &lt; b &amp; c &gt; d");
    expect(html("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html('<b onclick="x">hi</b>')).toBe('&lt;b onclick="x"&gt;hi&lt;/b&gt;');
    expect(html("&amp; &lt;")).toBe("&amp;amp; &amp;lt;");
    expect(html("**<i>**")).toBe("<b>&lt;i&gt;</b>");
  });

  it("links http(s) and tg URLs, escaping the attribute; other schemes keep only their text", () => {
    expect(html("[site](https://example.com/a?b=1&c=2)")).toBe('<a href="https://example.com/a?b=1&amp;c=2">site</a>');
    expect(html('[q](https://x.io/"><script>)')).toBe('<a href="https://x.io/&quot;&gt;&lt;script&gt;">q</a>');
    expect(html("[me](tg://user?id=42)")).toBe('<a href="tg://user?id=42">me</a>');
    expect(html("[x](javascript:alert(1))")).toBe("x");
    expect(html("[x](data:text/html,hi)")).toBe("x");
    expect(html("[x](//evil.com)")).toBe("x");
    expect(html('[x](https://a.b "title")')).toBe('<a href="https://a.b">x</a>');
    expect(html("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))")).toBe(
      '<a href="https://en.wikipedia.org/wiki/Foo_(bar)">wiki</a>',
    );
    expect(html("[](https://a.b)")).toBe('<a href="https://a.b">https://a.b</a>');
    expect(html("![floor plan](https://img.example/p.png)")).toBe('<a href="https://img.example/p.png">floor plan</a>');
    expect(html("<https://auto.link/x>")).toBe('<a href="https://auto.link/x">https://auto.link/x</a>');
    expect(html("[not a link] (https://a.b)")).toBe("[not a link] (https://a.b)");
  });

  it("formats link labels but never nests links or puts code inside another entity", () => {
    expect(html("[**bold** label](https://a.b)")).toBe('<a href="https://a.b"><b>bold</b> label</a>');
    expect(html("[see [inner](https://c.d)](https://a.b)")).toBe('<a href="https://a.b">see [inner](https://c.d)</a>');
    expect(html("[`code`](https://a.b)")).toBe('<a href="https://a.b">code</a>');
    expect(html("**run `npm test` now**")).toBe("<b>run npm test now</b>");
  });
});

describe("markdownToTelegramHtml: blocks", () => {
  it("renders fenced code with its language, escaped, and without a language as plain <pre>", () => {
    expect(html("```ts\nconst a = 1 < 2 && b;\n```")).toBe(
      '<pre><code class="language-ts">const a = 1 &lt; 2 &amp;&amp; b;</code></pre>',
    );
    expect(html("~~~\n**not bold**\n~~~")).toBe("<pre>**not bold**</pre>");
    expect(html("```\nunclosed\n")).toBe("<pre>unclosed</pre>");
    expect(html('```x" onclick="y\ncode\n```')).toBe("<pre>code</pre>");
    expect(html("```\n```")).toBe("");
    expect(html("before\n\n```py\nprint(1)\n```\nafter")).toBe(
      'before\n\n<pre><code class="language-py">print(1)</code></pre>\nafter',
    );
  });

  it("renders headings as bold lines, lists as bullets, tasks as boxes, rules as a dash line", () => {
    expect(html("# Title\n## Sub **bold** ##")).toBe("<b>Title</b>\n<b>Sub bold</b>");
    expect(html("- one\n* two\n+ three\n  - nested")).toBe("• one\n• two\n• three\n  • nested");
    expect(html("1. first\n2) second")).toBe("1. first\n2. second");
    expect(html("- [ ] open\n- [x] done")).toBe("☐ open\n☑ done");
    expect(html("above\n\n---\n\nbelow")).toBe("above\n\n———\n\nbelow");
    expect(html("- **Price:** 500 000 €")).toBe("• <b>Price:</b> 500 000 €");
  });

  it("renders quotes as one blockquote, flattening nested quotes (Telegram cannot nest them)", () => {
    expect(html("> quoted **text**\n> more\n>> deeper")).toBe(
      "<blockquote>quoted <b>text</b>\nmore\ndeeper</blockquote>",
    );
    expect(html("> ```\n> code\n> ```")).toBe("<blockquote><code>code</code></blockquote>");
  });

  it("turns tables into rows of cells without the delimiter row", () => {
    expect(html("| Home | Price |\n|:---|---:|\n| **Loft** | 1 \\| 2 |")).toBe("Home | Price\n<b>Loft</b> | 1 | 2");
  });

  it("collapses runs of blank lines and trims the message", () => {
    expect(html("\n\n  one\n\n\n\ntwo  \n\n")).toBe("one\n\ntwo");
    expect(html("a\r\nb")).toBe("a\nb");
  });
});

describe("visibleLength", () => {
  it("counts the text after entity parsing: tags removed, entities decoded, trimmed", () => {
    expect(visibleLength('<b>bold</b> &amp; <a href="https://a.b">x</a>')).toBe(8);
    expect(visibleLength("&lt;&gt;&quot;&#65;&#x42;")).toBe(5);
    expect(visibleLength("  <i> hi </i>\n")).toBe(2);
    expect(visibleLength("😀")).toBe(2); // UTF-16 code units, as Telegram counts
  });

  it("measures rendered markdown, which is never longer than the markdown itself here", () => {
    expect(measureMarkdown("**a** [b](https://x.y) `c` & d")).toBe("a b c & d".length);
    const long = "word ".repeat(900);
    expect(measureMarkdown(long)).toBe(long.trim().length);
  });
});

describe("helpers", () => {
  it("escapeHtml and safeHref", () => {
    expect(escapeHtml('<&>"')).toBe('&lt;&amp;&gt;"');
    expect(safeHref(' https://a.b/?q="x" ')).toBe("https://a.b/?q=&quot;x&quot;");
    expect(safeHref("https://a b")).toBeUndefined();
    expect(safeHref("JAVASCRIPT:alert(1)")).toBeUndefined();
  });
});

describe("always valid Telegram HTML", () => {
  const hostile = [
    "<script>alert(1)</script>",
    "**bold `code** more`",
    "[a](https://x.y)**b](https://z)**",
    "*a **b* c**",
    "> **quote\n> continues** ```x```",
    "~~*~~*",
    "_**_**",
    "```\n</pre><b>\n```",
    "[**x](https://a.b)**",
    "# **h** `c` [l](https://a.b)",
    '&&&<<<>>>""\'',
    "*".repeat(50),
    "`".repeat(7),
    `${"[".repeat(20)}](https://a.b)`,
    "\\",
  ];
  it.each(hostile)("%j", (markdown) => {
    expect(telegramHtmlProblem(html(markdown))).toBeUndefined();
  });

  it("for thousands of random markdown-like inputs", () => {
    const random = seededRandom(7);
    const pieces = [
      "*",
      "**",
      "_",
      "__",
      "~~",
      "`",
      "```",
      "[",
      "]",
      "(",
      ")",
      "https://a.b",
      "javascript:x",
      "<",
      ">",
    ];
    const more = ["&", "\\", " ", "\n", "\n\n", "> ", "- ", "# ", "| ", "word", "é", "😀", "tg://user?id=1", '"'];
    const all = [...pieces, ...more];
    for (let run = 0; run < 3000; run++) {
      let markdown = "";
      const length = Math.floor(random() * 40);
      for (let k = 0; k < length; k++) markdown += all[Math.floor(random() * all.length)];
      const rendered = html(markdown);
      const problem = telegramHtmlProblem(rendered);
      if (problem) throw new Error(`${JSON.stringify(markdown)} → ${JSON.stringify(rendered)}: ${problem}`);
      // A line continuing a list item takes the item's indentation (as on Slack and WhatsApp): a few spaces more.
      expect(visibleLength(rendered)).toBeLessThanOrEqual(markdown.length + 2 * markdown.split("\n").length);
    }
  });
});
