/**
 * Telegram's HTML parse mode rules (https://core.telegram.org/bots/api#html-style), checked strictly: only its
 * tags and attributes, `<`, `>` and `&` escaped in text, tags balanced, nothing inside `<code>`/`<pre>` except
 * `<code class>` directly in `<pre>`, no blockquote in a blockquote, no tag inside itself, no `<pre>` in a
 * blockquote. Returns the first violation, or undefined when the HTML is acceptable.
 */
export function telegramHtmlProblem(html: string): string | undefined {
  const stack: string[] = [];
  const token = /<(\/?)([a-z-]+)((?:\s+[a-z-]+="[^"<>]*")*)\s*>|&(?:lt|gt|amp|quot|#\d+|#x[0-9a-f]+);|[<>&]/giy;
  const allowed = new Set(["b", "i", "s", "code", "pre", "a", "blockquote"]);
  for (let at = 0; at < html.length; ) {
    const next = html.slice(at).search(/[<>&]/);
    if (next === -1) break;
    at += next;
    token.lastIndex = at;
    const match = token.exec(html);
    if (!match || match[0] === "<" || match[0] === ">" || match[0] === "&") return `unescaped ${html[at]} at ${at}`;
    at = token.lastIndex;
    if (match[0].startsWith("&")) continue;
    const [, closing, tag = "", attributes = ""] = match;
    if (!allowed.has(tag)) return `tag <${tag}> is not Telegram's`;
    if (closing) {
      if (stack.pop() !== tag) return `</${tag}> closes nothing open`;
      continue;
    }
    const parent = stack.at(-1);
    if (parent === "code") return "a tag inside <code>";
    if (parent === "pre" && !(tag === "code" && /^ class="language-[\w+#.-]+"$/.test(attributes)))
      return `<${tag}> inside <pre>`;
    if (stack.includes(tag)) return `<${tag}> nested in itself`;
    if (tag === "pre" && stack.includes("blockquote")) return "<pre> inside <blockquote>";
    if (tag === "code" && parent !== "pre" && stack.some((open) => open !== "blockquote"))
      return `<code> inside <${parent}>`;
    if (tag === "a" && !/^ href="(?:https?|tg):\/\/[^"]+"$/.test(attributes)) return `bad link${attributes}`;
    if (tag !== "a" && tag !== "code" && attributes !== "") return `attributes on <${tag}>`;
    stack.push(tag);
  }
  return stack.length > 0 ? `<${stack.at(-1)}> left open` : undefined;
}
