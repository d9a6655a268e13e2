import { describe, expect, it } from "vitest";
import { measureMrkdwn, markdownToMrkdwn as mrkdwn } from "../../../adapters/slack/format.js";
import { seededRandom } from "../../../src/server/seeded-random.js";

const ZWSP = "\u200b";
const ZWJ = "\u200d";

/**
 * What must hold for any rendered message: `>` as a quote's marker, `<`/`>` otherwise only around links to http(s)
 * or mailto targets without `|`, `<` or `>` in them and labels without `|`; `&` only in the three entities; no
 * placeholder left; no bare mass mention outside code and link targets.
 */
function mrkdwnProblem(text: string): string | undefined {
  const outside = text.replace(/^> /gm, "").replace(/<([^<>]*)>/g, (_all, inner: string) => {
    const [url = "", ...label] = inner.split("|");
    if (!/^(?:https?:\/\/|mailto:)\S+$/i.test(url)) return `{bad link ${inner}}`;
    return label.length > 1 ? `{pipe in label ${inner}}` : "";
  });
  const bad = /\{(?:bad link|pipe in label)[^}]*\}/.exec(outside);
  if (bad) return bad[0];
  if (/[<>]/.test(outside)) return `unescaped angle bracket in ${JSON.stringify(outside)}`;
  if (/&(?!amp;|lt;|gt;)/.test(text)) return "unescaped &";
  if (/[\ue000-\ue003]/.test(text)) return "placeholder left";
  const notCode = outside.replace(/```.*?```|`[^`\n]*`/gs, "");
  if (/(?<![A-Za-z0-9])@(?:here|channel|everyone)(?![A-Za-z0-9])/i.test(notCode)) return "mass mention";
  return undefined;
}

describe("markdownToMrkdwn: inline", () => {
  it.each([
    ["**bold** and __bold__", "*bold* and *bold*"],
    ["*italic* and _italic_", "_italic_ and _italic_"],
    ["~~gone~~", "~gone~"],
    ["***both***", "_*both*_"],
    ["**bold *and italic* inside**", "*bold _and italic_ inside*"],
    ["~~**struck bold**~~", "~*struck bold*~"],
    ["**bold **nested** bold**", "*bold nested bold*"],
    ["*foo**bar*", "_foo**bar_"],
    ["_a_b_", "_a_b_"],
    ["`code`", "`code`"],
    ["` padded `", "`padded`"],
    ["\\*not italic\\* and \\_no\\_", "∗not italic∗ and ˍnoˍ"],
    ["line one\nline two", "line one\nline two"],
    ["(**bold**), **Price:** 5", "(*bold*), *Price:* 5"],
  ])("%j → %j", (markdown, expected) => {
    expect(mrkdwn(markdown)).toBe(expected);
  });

  it("keeps markers inside words and between spaces literal", () => {
    expect(mrkdwn("call snake_case_name() or __init__")).toBe("call snake_case_name() or *init*");
    expect(mrkdwn("2*3*4 = 24 and 2 * 3 * 4 = 24")).toBe("2*3*4 = 24 and 2 * 3 * 4 = 24");
    expect(mrkdwn("un**believ**able")).toBe("un∗∗believ∗∗able");
    expect(mrkdwn("about ~100 m² ~ 120")).toBe("about ~100 m² ~ 120");
    expect(mrkdwn(":white_check_mark: done")).toBe(":white_check_mark: done");
  });

  it("renders unbalanced markers as literal text, never as broken markup", () => {
    expect(mrkdwn("**bold without end")).toBe("**bold without end");
    expect(mrkdwn("half **bold and *italic")).toBe("half **bold and *italic");
    expect(mrkdwn("`never closed")).toBe("`never closed");
    expect(mrkdwn("**")).toBe("**");
    expect(mrkdwn("~~")).toBe("~~");
    expect(mrkdwn("~~~")).toBe("");
  });

  it("turns stray markers that Slack could pair with another into lookalikes", () => {
    expect(mrkdwn("**bold without end, then *italic* text")).toBe("**bold without end, then _italic_ text");
    expect(mrkdwn("**bold without end, then **bold** text")).toBe("∗∗bold without end, then *bold* text");
    expect(mrkdwn("a ** b ** c")).toBe("a ∗∗ b ∗∗ c");
    expect(mrkdwn("*a and **b** c")).toBe("∗a and *b* c");
    expect(mrkdwn("\\_one and two\\_")).toBe("ˍone and twoˍ");
    expect(mrkdwn("~a and ~b~")).toBe("∼a and ∼b∼");
    expect(mrkdwn("\\`one and `two`")).toBe("ˋone and `two`");
    expect(mrkdwn("x *a _b* c_")).toBe("x _a ˍb_ cˍ");
  });

  it("closes and reopens spans at line ends, since Slack formats within a line", () => {
    expect(mrkdwn("**across\nlines**")).toBe("*across*\n*lines*");
    expect(mrkdwn("*a **b\nc** d*")).toBe("_a *b*_\n_*c* d_");
  });

  it("sets markers off from letters they touch with a zero-width space", () => {
    expect(mrkdwn("価格は**500万円**です")).toBe(`価格は${ZWSP}*500万円*${ZWSP}です`);
    expect(mrkdwn("foo`bar`baz")).toBe(`foo${ZWSP}\`bar\`${ZWSP}baz`);
    expect(mrkdwn("**500**€")).toBe(`*500*${ZWSP}€`);
  });
});

describe("markdownToMrkdwn: escaping", () => {
  it("escapes &, < and > in text, also input that looks like markup or entities", () => {
    expect(mrkdwn("a < b & c > d")).toBe("a &lt; b &amp; c &gt; d");
    expect(mrkdwn("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(mrkdwn("&amp; &lt;")).toBe("&amp;amp; &amp;lt;");
    expect(mrkdwn("**<b>**")).toBe("*&lt;b&gt;*");
    expect(mrkdwn("<https://a.b|fake link>")).toBe("&lt;<https://a.b%7Cfake> link&gt;");
  });

  it("keeps a line that starts with > text rather than a quote", () => {
    expect(mrkdwn("\\> not a quote")).toBe("\u00ad&gt; not a quote");
    expect(mrkdwn("a\n\\>>> not the rest")).toBe("a\n\u00ad&gt;&gt;&gt; not the rest");
    expect(mrkdwn("x > y")).toBe("x &gt; y");
  });

  it("escapes code the same way and formats nothing inside it", () => {
    expect(mrkdwn("`x < y && *z* _w_ ~~v~~`")).toBe("`x &lt; y &amp;&amp; *z* _w_ ~~v~~`");
    expect(mrkdwn("`@here <!channel>`")).toBe("`@here &lt;!channel&gt;`");
    expect(mrkdwn("``a ` b``")).toBe("`a ˋ b`");
    expect(mrkdwn("```\nif (a < b && c > d) { *p = 1; }\n**not bold** [x](https://a.b)\n```")).toBe(
      "```\nif (a &lt; b &amp;&amp; c &gt; d) { *p = 1; }\n**not bold** [x](https://a.b)\n```",
    );
  });
});

describe("markdownToMrkdwn: links", () => {
  it("links http(s) and mailto, escaping & in the URL", () => {
    expect(mrkdwn("[site](https://example.com/a?b=1&c=2)")).toBe("<https://example.com/a?b=1&amp;c=2|site>");
    expect(mrkdwn("[mail us](mailto:sales@homes.example)")).toBe("<mailto:sales@homes.example|mail us>");
    expect(mrkdwn('[x](https://a.b "title")')).toBe("<https://a.b|x>");
    expect(mrkdwn("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))")).toBe(
      "<https://en.wikipedia.org/wiki/Foo_(bar)|wiki>",
    );
    expect(mrkdwn("[https://a.b](https://a.b)")).toBe("<https://a.b>");
    expect(mrkdwn("[](https://a.b)")).toBe("<https://a.b>");
  });

  it("keeps | and > from breaking a link, in its text and in its URL", () => {
    expect(mrkdwn("[a|b > c](https://x.io/p|q>r)")).toBe("<https://x.io/p%7Cq%3Er|a∣b &gt; c>");
    expect(mrkdwn("[<@U123> & co](<https://x.io/a b>)")).toBe("&lt;@U123&gt; &amp; co");
    expect(mrkdwn("[1 < 2](https://x.io/?q=<x>)")).toBe("<https://x.io/?q=%3Cx%3E|1 &lt; 2>");
  });

  it("shows link text without markup, on one line", () => {
    expect(mrkdwn("[**bold** `code` label](https://a.b)")).toBe("<https://a.b|bold code label>");
    expect(mrkdwn("[two\nlines](https://a.b)")).toBe("<https://a.b|two lines>");
    expect(mrkdwn("**[x](https://a.b)**")).toBe("*<https://a.b|x>*");
    expect(mrkdwn("[see [inner](https://c.d)](https://a.b)")).toBe("<https://a.b|see [inner](https://c.d)>");
  });

  it("keeps only the text of other schemes", () => {
    expect(mrkdwn("[x](javascript:alert(1))")).toBe("x");
    expect(mrkdwn("[x](data:text/html,hi)")).toBe("x");
    expect(mrkdwn("[x](//evil.com)")).toBe("x");
    expect(mrkdwn("[**x**](slack://open)")).toBe("*x*");
    expect(mrkdwn("<javascript:alert(1)>")).toBe("javascript:alert(1)");
    expect(mrkdwn("[not a link] (https://a.b)")).toBe("[not a link] (<https://a.b>)");
  });

  it("renders images as links, autolinks and bare URLs as links", () => {
    expect(mrkdwn("![floor plan](https://img.example/p.png)")).toBe("<https://img.example/p.png|floor plan>");
    expect(mrkdwn("![](https://img.example/p.png)")).toBe("<https://img.example/p.png>");
    expect(mrkdwn("<https://auto.link/x?a=1&b=2>")).toBe("<https://auto.link/x?a=1&amp;b=2>");
    expect(mrkdwn("<sales@homes.example>")).toBe("<mailto:sales@homes.example|sales@homes.example>");
    expect(mrkdwn("see https://example.com/a_b_c. Then")).toBe("see <https://example.com/a_b_c>. Then");
    expect(mrkdwn("(https://a.b/c) and https://a.b/(d)")).toBe("(<https://a.b/c>) and <https://a.b/(d)>");
    expect(mrkdwn("**https://a.b/*x**")).toBe("*<https://a.b/*x>*");
    expect(mrkdwn("https://a.b/x|y>z")).toBe("<https://a.b/x%7Cy>&gt;z");
    expect(mrkdwn("`https://a.b` and https://")).toBe("`https://a.b` and https://");
  });
});

describe("markdownToMrkdwn: mentions", () => {
  it("never produces Slack's mention, channel or command syntax", () => {
    expect(mrkdwn("<!channel> <!here|here> <@U123> <#C42|general> <!subteam^S1>")).toBe(
      "&lt;!channel&gt; &lt;!here|here&gt; &lt;@U123&gt; &lt;#C42|general&gt; &lt;!subteam^S1&gt;",
    );
  });

  it("breaks bare @here, @channel and @everyone with a zero-width joiner, in any case", () => {
    expect(mrkdwn("@here hi @channel, @Everyone!")).toBe(`@${ZWJ}here hi @${ZWJ}channel, @${ZWJ}Everyone!`);
    expect(mrkdwn("**@here** [@channel](https://a.b)")).toBe(`*@${ZWJ}here* <https://a.b|@${ZWJ}channel>`);
    expect(mrkdwn("- @everyone\n\n| to |\n|---|\n| @here |")).toContain(`• @${ZWJ}everyone`);
    expect(mrkdwn("| to |\n|---|\n| @here |")).toContain(`@${ZWJ}here`);
  });

  it("leaves e-mail addresses, longer words and code alone", () => {
    expect(mrkdwn("team@channel.io @heres @channels")).toBe("team@channel.io @heres @channels");
    expect(mrkdwn("`@here`")).toBe("`@here`");
  });
});

describe("markdownToMrkdwn: blocks", () => {
  it("renders fenced code as a pre block without its language", () => {
    expect(mrkdwn("```ts\nconst a = 1;\n```")).toBe("```\nconst a = 1;\n```");
    expect(mrkdwn("~~~\n*x*\n~~~")).toBe("```\n*x*\n```");
    expect(mrkdwn("```\nunclosed\n")).toBe("```\nunclosed\n```");
    expect(mrkdwn("```\n```")).toBe("");
    expect(mrkdwn("````md\n```\ninner\n```\n````")).toBe(
      `\`\`\`\n\`${ZWSP}\`${ZWSP}\`\ninner\n\`${ZWSP}\`${ZWSP}\`\n\`\`\``,
    );
    expect(mrkdwn("before\n\n```py\nprint(1)\n\n\nprint(2)\n```\nafter")).toBe(
      "before\n\n```\nprint(1)\n\n\nprint(2)\n```\nafter",
    );
    expect(mrkdwn("- step\n   ```sh\n   npm test\n   ```")).toBe("• step\n```\nnpm test\n```");
  });

  it("renders headings as bold lines and rules as a line", () => {
    expect(mrkdwn("# Title\n## Sub **bold** _it_ ##")).toBe("*Title*\n*Sub bold _it_*");
    expect(mrkdwn("#hashtag")).toBe("#hashtag");
    expect(mrkdwn("above\n\n---\n\nbelow\n***\n_ _ _")).toBe("above\n\n───\n\nbelow\n───\n───");
  });

  it("renders bullets as • and nested ones indented with ◦, whatever the indentation step", () => {
    expect(mrkdwn("- one\n* two\n+ three")).toBe("• one\n• two\n• three");
    expect(mrkdwn("- a\n  - b\n    - c\n  - d\n- e")).toBe("• a\n    ◦ b\n        ◦ c\n    ◦ d\n• e");
    expect(mrkdwn("- a\n    - b\n\t- c")).toBe("• a\n    ◦ b\n    ◦ c");
    expect(mrkdwn("- **Price:** 500 000 €")).toBe("• *Price:* 500 000 €");
    expect(mrkdwn("- [ ] open\n- [x] done")).toBe("☐ open\n☑ done");
    expect(mrkdwn("- a\n  still a\n- b")).toBe("• a\n  still a\n• b");
  });

  it("keeps numbered lists, nested too", () => {
    expect(mrkdwn("1. first\n2) second\n10. tenth")).toBe("1. first\n2. second\n10. tenth");
    expect(mrkdwn("1. first\n   - detail\n   1. sub\n2. second")).toBe("1. first\n    ◦ detail\n    1. sub\n2. second");
  });

  it("renders quotes line by line, flattening nested ones and code inside them", () => {
    expect(mrkdwn("> quoted **text**\n> more\n>\n>> deeper")).toBe("> quoted *text*\n> more\n> deeper");
    expect(mrkdwn("> ```\n> a < b\n> ```")).toBe("> `a &lt; b`");
    expect(mrkdwn("> - item\n> # Head")).toBe("> • item\n> *Head*");
    expect(mrkdwn(">".repeat(5000))).toBe("");
  });

  it("renders tables as aligned preformatted text", () => {
    expect(mrkdwn("| Home | Price |\n|:---|---:|\n| **Loft** | 1 \\| 2 |\n| [Villa](https://a.b) | 1 200 € |")).toBe(
      [
        "```",
        "Home                │   Price",
        "────────────────────┼────────",
        "Loft                │   1 | 2",
        "Villa (https://a.b) │ 1 200 €",
        "```",
      ].join("\n"),
    );
    expect(mrkdwn("a | b\n:-:|--\nx < y | `z`\nlast")).toBe("```\n  a   │ b\n──────┼──\nx &lt; y │ z\n```\nlast");
    expect(mrkdwn("> | a | b |\n> |---|---|\n> | c | d |")).toBe("> `a │ b`\n> `──┼──`\n> `c │ d`");
  });

  it("collapses runs of blank lines and trims the message", () => {
    expect(mrkdwn("\n\n  one\n\n\n\ntwo  \n\n")).toBe("one\n\ntwo");
    expect(mrkdwn("a\r\nb\rc")).toBe("a\nb\nc");
    expect(mrkdwn("")).toBe("");
  });
});

describe("measureMrkdwn", () => {
  it("is the length of the rendered mrkdwn", () => {
    const samples = ["**a** [b](https://x.y) `c` & d", "> q\n- l", "@here", "😀 *x*", "word ".repeat(900)];
    for (const markdown of samples) expect(measureMrkdwn(markdown)).toBe(mrkdwn(markdown).length);
    expect(measureMrkdwn("a & b")).toBe("a &amp; b".length);
    expect(measureMrkdwn("[x](https://a.b)")).toBe("<https://a.b|x>".length);
  });
});

describe("a realistic answer", () => {
  const answer = [
    "## 3 homes in Austin under $700k",
    "",
    "Here are the best matches for **3 bedrooms** near _downtown_:",
    "",
    "1. **Villa Rosa** — **$649,000**",
    "   - 3 bd · 2 ba · 1,850 sq ft",
    "   - [View listing](https://homes.example.com/listings/villa-rosa?ref=chat&utm=bot)",
    "2. **Cedar Loft** — **$689,500** ~~$715,000~~",
    "   - Photos: https://img.example.com/cedar_loft/1.jpg",
    "3. **Maple Court** — **$599,000** (needs a new roof, ~$12k)",
    "",
    "> Prices change fast: **book a visit** soon.",
    "",
    "Questions? Write to <sales@homes.example.com>, or tell me your budget & I'll refine the search.",
    "",
    "---",
    "*Listings updated hourly.*",
  ].join("\n");
  const expected = [
    "*3 homes in Austin under $700k*",
    "",
    "Here are the best matches for *3 bedrooms* near _downtown_:",
    "",
    "1. *Villa Rosa* — *$649,000*",
    "    ◦ 3 bd · 2 ba · 1,850 sq ft",
    "    ◦ <https://homes.example.com/listings/villa-rosa?ref=chat&amp;utm=bot|View listing>",
    "2. *Cedar Loft* — *$689,500* ~$715,000~",
    "    ◦ Photos: <https://img.example.com/cedar_loft/1.jpg>",
    "3. *Maple Court* — *$599,000* (needs a new roof, ~$12k)",
    "",
    "> Prices change fast: *book a visit* soon.",
    "",
    "Questions? Write to <mailto:sales@homes.example.com|sales@homes.example.com>, or tell me your budget &amp; I'll" +
      " refine the search.",
    "",
    "───",
    "_Listings updated hourly._",
  ].join("\n");

  it("renders as Slack shows it best", () => {
    expect(mrkdwn(answer)).toBe(expected);
    expect(measureMrkdwn(answer)).toBe(expected.length);
  });
});

describe("always valid mrkdwn", () => {
  const hostile = [
    "<script>alert(1)</script>",
    "**bold `code** more`",
    "[a](https://x.y)**b](https://z)**",
    "*a **b* c**",
    "> **quote\n> continues** ```x```",
    "~~*~~*",
    "_**_**",
    "```\n</pre><!channel>\n```",
    "[**x](https://a.b)**",
    "# **h** `c` [l](https://a.b|x)",
    '&&&<<<>>>""\'|||',
    "*".repeat(50),
    "`".repeat(7),
    `${"[".repeat(20)}](https://a.b)`,
    "https://a.b/<x>|y",
    "\\",
    "\ue000\ue001\ue002\ue003 placeholders",
  ];
  it.each(hostile)("%j", (markdown) => {
    expect(mrkdwnProblem(mrkdwn(markdown))).toBeUndefined();
  });

  it("never throws on very long or absurdly nested input; nesting past 16 levels stays literal", () => {
    const nested = `${"**a ".repeat(20)}b${"** a".repeat(20)}`;
    expect(mrkdwn(nested)).toMatch(/^(?:∗∗a ){4}\*a a a /);
    const deep = mrkdwn(`${"**a ".repeat(5000)}b${"** a".repeat(5000)}`);
    expect(mrkdwnProblem(deep)).toBeUndefined();
    expect(mrkdwn("> x\n".repeat(200_000))).toHaveLength(200_000 * 4 - 1);
    expect(mrkdwn("x\n".repeat(200_000))).toHaveLength(200_000 * 2 - 1);
    expect(mrkdwn("![".repeat(50_000))).toBe("![".repeat(50_000));
  });

  it("for thousands of random markdown-like inputs, the same every time", () => {
    const random = seededRandom(11);
    const pieces = ["*", "**", "_", "__", "~", "~~", "`", "```", "[", "]", "(", ")", "![", "<", ">", "&", "|", "\\"];
    const more = [" ", "\n", "\n\n", "> ", "- ", "  - ", "1. ", "# ", "| ", "|---|\n", "word", "é", "😀", "@here"];
    const links = ["https://a.b/c_d", "mailto:x@y.z", "javascript:x", "<https://a.b>", "<x@y.z>", "<!channel>"];
    const all = [...pieces, ...more, ...links];
    for (let run = 0; run < 3000; run++) {
      let markdown = "";
      const length = Math.floor(random() * 40);
      for (let k = 0; k < length; k++) markdown += all[Math.floor(random() * all.length)];
      const rendered = mrkdwn(markdown);
      const problem = mrkdwnProblem(rendered);
      if (problem) throw new Error(`${JSON.stringify(markdown)} → ${JSON.stringify(rendered)}: ${problem}`);
      expect(mrkdwn(markdown)).toBe(rendered);
    }
  });
});
