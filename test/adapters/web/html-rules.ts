/**
 * What the web chat page may receive as a message's HTML, checked strictly: only the tags the renderer draws, `<`,
 * `>`, `&`, `"` and `'` escaped in text, tags balanced and in their places (cells in rows in a table, nothing but
 * text in `<code>`), links to http(s) or mailto only and opening in a new tab without the page's opener. Returns the
 * first violation, or undefined when the HTML is acceptable.
 */
export function webHtmlProblem(html: string): string | undefined {
  const stack: string[] = [];
  const token = /<(\/?)([a-z]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&(?:lt|gt|amp|quot|#39);|[<>&"']/giy;
  const inline = new Set(["strong", "em", "del", "code", "a"]);
  const parents: Record<string, (parent: string | undefined) => boolean> = {
    table: (parent) => parent === undefined || parent === "blockquote",
    thead: (parent) => parent === "table",
    tbody: (parent) => parent === "table",
    tr: (parent) => parent === "thead" || parent === "tbody",
    th: (parent) => parent === "tr",
    td: (parent) => parent === "tr",
    pre: (parent) => parent === undefined || parent === "blockquote",
    blockquote: (parent) => parent === undefined,
    hr: (parent) => parent === undefined,
  };
  for (let at = 0; at < html.length; ) {
    const next = html.slice(at).search(/[<>&"']/);
    if (next === -1) break;
    at += next;
    token.lastIndex = at;
    const match = token.exec(html);
    if (!match || match[0].length === 1) return `unescaped ${html[at]} at ${at}`;
    at = token.lastIndex;
    if (match[0].startsWith("&")) continue;
    const [, closing, tag = "", attributes = ""] = match;
    if (!inline.has(tag) && !(tag in parents)) return `tag <${tag}> is not the renderer's`;
    if (closing) {
      if (stack.pop() !== tag) return `</${tag}> closes nothing open`;
      continue;
    }
    const parent = stack.at(-1);
    if (parent === "code") return "a tag inside <code>";
    if (tag in parents && !parents[tag]?.(parent)) return `<${tag}> inside <${parent ?? "the message"}>`;
    if (["table", "thead", "tbody", "tr"].includes(parent ?? "") && !(tag in parents)) return `<${tag}> between cells`;
    if (
      tag === "a" &&
      !/^ href="(?:https?:\/\/|mailto:)[^"]+" target="_blank" rel="noopener noreferrer"$/.test(attributes)
    )
      return `bad link${attributes}`;
    if (tag === "a" && stack.includes("a")) return "a link inside a link";
    const classes = /^ class="(?:language-[\w+#.-]+|right|center|heading)"$/;
    if (tag !== "a" && attributes !== "" && !classes.test(attributes)) return `attributes on <${tag}>`;
    if (tag !== "hr") stack.push(tag);
  }
  return stack.length > 0 ? `<${stack.at(-1)}> left open` : undefined;
}
