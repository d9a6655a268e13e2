import { describe, expect, it } from "vitest";
import { measureWhatsApp, markdownToWhatsApp as wa } from "../../../adapters/whatsapp/format.js";
import { seededRandom } from "../../../src/server/seeded-random.js";

const ZWSP = "\u200b";

describe("markdownToWhatsApp: emphasis and code", () => {
  it.each([
    ["**bold** and __bold__", "*bold* and *bold*"],
    ["*italic* and _italic_", "_italic_ and _italic_"],
    ["~~gone~~", "~gone~"],
    ["`code` and ` padded `", "`code` and `padded`"],
    ["***both***", "_*both*_"],
    ["**bold *and italic* inside**", "*bold _and italic_ inside*"],
    ["~~**struck bold**~~", "~*struck bold*~"],
    ["**bold **nested** bold**", "*bold nested bold*"],
    ["(**bold**), **Price:** 5", "(*bold*), *Price:* 5"],
    ["**a** **b**", "*a* *b*"],
    ["line one\nline two", "line one\nline two"],
  ])("%j → %j", (markdown, expected) => {
    expect(wa(markdown)).toBe(expected);
  });

  it("shows emphasis WhatsApp could not render, inside or against a word, as plain text", () => {
    expect(wa("**bold**word")).toBe("boldword");
    expect(wa("un**believ**able")).toBe("unbelievable");
    expect(wa("foo~~bar~~")).toBe("foobar");
    expect(wa("**a**_b_")).toBe("ab");
    expect(wa("価格は**500万円**です")).toBe("価格は500万円です");
    expect(wa("foo`bar`baz")).toBe("foobarbaz");
  });

  it("keeps arithmetic, snake_case and lone tildes literal", () => {
    expect(wa("2*3*4 = 24 and 2 * 3 * 4 = 24")).toBe("2*3*4 = 24 and 2 * 3 * 4 = 24");
    expect(wa("call snake_case_name() or __init__")).toBe("call snake_case_name() or *init*");
    expect(wa("about ~100 m² ~ 120")).toBe("about ~100 m² ~ 120");
  });

  it("renders unbalanced markdown from a partial answer as literal text", () => {
    expect(wa("**bold without end")).toBe("**bold without end");
    expect(wa("half **bold and *italic")).toBe("half **bold and *italic");
    expect(wa("`never closed")).toBe("`never closed");
    expect(wa("**")).toBe("**");
    expect(wa("*a*\n\n```\nunclosed")).toBe("_a_\n\n```\nunclosed\n```");
  });

  it("turns stray markers that WhatsApp could pair with another into lookalikes", () => {
    expect(wa("a ** b ** c")).toBe("a ∗∗ b ∗∗ c");
    expect(wa("\\*not italic\\* and \\_no\\_")).toBe("∗not italic∗ and ˍnoˍ");
    expect(wa("*a and **b** c")).toBe("∗a and *b* c");
    expect(wa("~a and ~b~")).toBe("∼a and ∼b∼");
    expect(wa("\\`one and `two`")).toBe("ˋone and `two`");
    expect(wa("x *a _b* c_")).toBe("x _a ˍb_ cˍ");
    expect(wa("**Note:**text")).toBe("∗∗Note:∗∗text");
    expect(wa("**bold `code** more`")).toBe("∗∗bold `code** more`");
  });

  it("closes and reopens spans at line ends", () => {
    expect(wa("**across\nlines**")).toBe("*across*\n*lines*");
    expect(wa("*a **b\nc** d*")).toBe("_a *b*_\n_*c* d_");
  });

  it("formats nothing inside code", () => {
    expect(wa("`*x* _y_ ~~z~~`")).toBe("`*x* _y_ ~~z~~`");
    expect(wa("``a ` b``")).toBe("`a ˋ b`");
    expect(wa("```\n**not bold** _x_ [l](https://a.b)\n```")).toBe("```\n**not bold** _x_ [l](https://a.b)\n```");
    expect(wa("````md\n```\ninner\n```\n````")).toBe(
      `\`\`\`\n\`${ZWSP}\`${ZWSP}\`\ninner\n\`${ZWSP}\`${ZWSP}\`\n\`\`\``,
    );
  });
});

describe("markdownToWhatsApp: links", () => {
  it("writes links as text (url), or the bare url when the text is the url", () => {
    expect(wa("[site](https://example.com/a?b=1&c=2)")).toBe("site (https://example.com/a?b=1&c=2)");
    expect(wa("[https://a.b](https://a.b)")).toBe("https://a.b");
    expect(wa("[](https://a.b)")).toBe("https://a.b");
    expect(wa('[x](https://a.b "title")')).toBe("x (https://a.b)");
    expect(wa("[**x**](https://a.b)")).toBe("*x* (https://a.b)");
    expect(wa("[mail us](mailto:sales@homes.example)")).toBe("mail us (sales@homes.example)");
    expect(wa("<sales@homes.example> <https://a.b/x>")).toBe("sales@homes.example https://a.b/x");
  });

  it("keeps bare URLs as they are, markers and all", () => {
    expect(wa("see https://example.com/a_b_c. Then")).toBe("see https://example.com/a_b_c. Then");
    expect(wa("_x_ https://a.b/c_d*e")).toBe("_x_ https://a.b/c_d*e");
    expect(wa("(https://a.b/c) and https://a.b/(d)")).toBe("(https://a.b/c) and https://a.b/(d)");
  });

  it("keeps emphasis off an address, which would run into it", () => {
    expect(wa("**https://a.b**")).toBe("https://a.b");
    expect(wa("**[x](https://a.b)**")).toBe("x (https://a.b)");
  });

  it("shows only the text of unsafe schemes", () => {
    expect(wa("[x](javascript:alert(1))")).toBe("x");
    expect(wa("[x](data:text/html,hi)")).toBe("x");
    expect(wa("[**x**](//evil.com)")).toBe("*x*");
    expect(wa("<javascript:alert(1)>")).toBe("javascript:alert(1)");
  });

  it("renders images as their link", () => {
    expect(wa("![floor plan](https://img.example/p.png)")).toBe("floor plan (https://img.example/p.png)");
    expect(wa("![](https://img.example/p.png)")).toBe("https://img.example/p.png");
  });
});

describe("markdownToWhatsApp: blocks", () => {
  it("renders headings as bold lines and rules as a line", () => {
    expect(wa("# Title\n## Sub **bold** _it_ ##")).toBe("*Title*\n*Sub bold _it_*");
    expect(wa("#hashtag")).toBe("#hashtag");
    expect(wa("above\n\n---\n\nbelow\n***")).toBe("above\n\n───\n\nbelow\n───");
  });

  it("renders lists with - and numbers, nested by indentation", () => {
    expect(wa("- one\n* two\n+ three")).toBe("- one\n- two\n- three");
    expect(wa("- a\n  - b\n    - c\n  - d\n- e")).toBe("- a\n  - b\n    - c\n  - d\n- e");
    expect(wa("1. first\n   - detail\n   1. sub\n2) second")).toBe("1. first\n  - detail\n  1. sub\n2. second");
    expect(wa("- **Price:** 500 000 €")).toBe("- *Price:* 500 000 €");
    expect(wa("- [ ] open\n- [x] done")).toBe("☐ open\n☑ done");
    expect(wa("- a\n  still a\n- b")).toBe("- a\n  still a\n- b");
  });

  it("renders quotes line by line, flattening nested ones and code inside them", () => {
    expect(wa("> quoted **text**\n> more\n>\n>> deeper")).toBe("> quoted *text*\n> more\n> deeper");
    expect(wa("> ```\n> a `b` c\n> ```")).toBe("> `a ˋbˋ c`");
    expect(wa(">".repeat(5000))).toBe("");
  });

  it("keeps a line of text starting with > from becoming a quote", () => {
    expect(wa("\\> not a quote")).toBe(`${ZWSP}> not a quote`);
    expect(wa("x > y")).toBe("x > y");
  });

  it("renders fenced code as a monospace block without its language", () => {
    expect(wa("```ts\nconst a = 1;\n```")).toBe("```\nconst a = 1;\n```");
    expect(wa("~~~\n*x*\n~~~")).toBe("```\n*x*\n```");
    expect(wa("```\n```")).toBe("");
  });

  it("renders tables as aligned monospace blocks", () => {
    expect(wa("| Home | Price |\n|:---|---:|\n| **Loft** | 1 \\| 2 |\n| [Villa](https://a.b) | 1 200 € |")).toBe(
      [
        "```",
        "Home                │   Price",
        "────────────────────┼────────",
        "Loft                │   1 | 2",
        "Villa (https://a.b) │ 1 200 €",
        "```",
      ].join("\n"),
    );
  });

  it("collapses runs of blank lines and trims the message", () => {
    expect(wa("\n\n  one\n\n\n\ntwo  \n\n")).toBe("one\n\ntwo");
    expect(wa("a\r\nb\rc")).toBe("a\nb\nc");
    expect(wa("")).toBe("");
    expect(wa("\ue000\ue003 placeholders")).toBe("placeholders");
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
    "| Home | Price | Size |",
    "|---|--:|--:|",
    "| Villa Rosa | $649,000 | 1,850 sq ft |",
    "| Cedar Loft | $689,500 | 1,720 sq ft |",
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
    "  - 3 bd · 2 ba · 1,850 sq ft",
    "  - View listing (https://homes.example.com/listings/villa-rosa?ref=chat&utm=bot)",
    "2. *Cedar Loft* — *$689,500* ~$715,000~",
    "  - Photos: https://img.example.com/cedar_loft/1.jpg",
    "3. *Maple Court* — *$599,000* (needs a new roof, ~$12k)",
    "",
    "```",
    "Home       │    Price │        Size",
    "───────────┼──────────┼────────────",
    "Villa Rosa │ $649,000 │ 1,850 sq ft",
    "Cedar Loft │ $689,500 │ 1,720 sq ft",
    "```",
    "",
    "> Prices change fast: *book a visit* soon.",
    "",
    "Questions? Write to sales@homes.example.com, or tell me your budget & I'll refine the search.",
    "",
    "───",
    "_Listings updated hourly._",
  ].join("\n");

  it("renders as WhatsApp shows it best", () => {
    expect(wa(answer)).toBe(expected);
    expect(measureWhatsApp(answer)).toBe(expected.length);
  });
});

describe("measureWhatsApp", () => {
  it("is the length of the rendered text in UTF-16 code units", () => {
    const samples = [
      "**a** [b](https://x.y) `c` & d",
      "> q\n- l",
      "😀 *x*",
      "| a |\n|---|\n| b |",
      "word ".repeat(900),
    ];
    for (const markdown of samples) expect(measureWhatsApp(markdown)).toBe(wa(markdown).length);
    expect(measureWhatsApp("😀")).toBe(2);
  });
});

describe("robustness", () => {
  it("stays fast on 100 KB inputs, nesting past 16 levels literal", () => {
    const inputs = [
      "**bold** _it_ `c` [l](https://a.b) x*y ".repeat(2600),
      `${"**a ".repeat(12_000)}b${"** a".repeat(12_000)}`,
      "![".repeat(50_000),
      "a * b _ c ~~ d ` ".repeat(6000),
      "> x\n".repeat(25_000),
      "- a\n  - b\n".repeat(10_000),
      `| a | b |\n|---|---|\n${"| x | y |\n".repeat(10_000)}`,
    ];
    const started = performance.now();
    for (const markdown of inputs) expect(wa(markdown).length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(wa(`${"**a ".repeat(20)}b${"** a".repeat(20)}`)).toMatch(/^(?:∗∗a ){4}\*a a a /);
  });

  it("for thousands of random markdown-like inputs, never throws and is the same every time", () => {
    const random = seededRandom(7);
    const pieces = ["*", "**", "_", "__", "~", "~~", "`", "```", "[", "]", "(", ")", "![", "<", ">", "|", "\\"];
    const more = [" ", "\n", "\n\n", "> ", "- ", "  - ", "1. ", "# ", "| ", "|---|\n", "word", "é", "😀", "---"];
    const links = ["https://a.b/c_d", "mailto:x@y.z", "javascript:x", "<https://a.b>", "<x@y.z>", "\ue001"];
    const all = [...pieces, ...more, ...links];
    for (let run = 0; run < 3000; run++) {
      let markdown = "";
      const length = Math.floor(random() * 40);
      for (let k = 0; k < length; k++) markdown += all[Math.floor(random() * all.length)];
      const rendered = wa(markdown);
      expect(rendered).not.toMatch(/[\ue000-\ue003]/);
      expect(wa(markdown)).toBe(rendered);
      expect(measureWhatsApp(markdown)).toBe(rendered.length);
    }
  });
});
