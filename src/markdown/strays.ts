/**
 * Literal `*`, `_`, `~` and backticks in chat text without an escape character (Slack mrkdwn, WhatsApp): a literal
 * marker that could pair with another one is replaced by a lookalike (∗ ˍ ∼ ˋ) that the platform never reads as
 * markup. Only markers that could pair get one, so `2 * 3`, `snake_case` and `~100` stay the characters the chatbot
 * wrote.
 *
 * Why lookalikes and not zero-width characters: Slack treats a zero-width space as a word boundary, so next to a
 * marker it enables formatting rather than preventing it, and whether WhatsApp does the same is nowhere documented.
 * A lookalike is certain. Zero-width spaces are used only where any non-backtick or non-`>` character does the job:
 * inside ``` runs in code, and before a `>` that starts a line.
 */

/** Inline code cannot contain a backtick; the modifier letter looks the same. */
export const GRAVE = "ˋ";
export const ZWSP = "\u200b";

/**
 * While rendering, a literal marker from the text is a private-use placeholder, so that `resolveStrays` can tell it
 * from markup in the finished message; the input's own such characters are dropped (`PLACEHOLDERS`).
 */
const STRAYS = [
  { placeholder: "\ue000", marker: "*", lookalike: "∗", run: /[*\ue000]+/g },
  { placeholder: "\ue001", marker: "_", lookalike: "ˍ", run: /[_\ue001]+/g },
  { placeholder: "\ue002", marker: "~", lookalike: "∼", run: /[~\ue002]+/g },
  { placeholder: "\ue003", marker: "`", lookalike: GRAVE, run: /[`\ue003]+/g },
] as const;
export const PLACEHOLDERS = /[\ue000-\ue003]/g;
const PLACEHOLDER_OF: Record<string, string> = Object.fromEntries(STRAYS.map((s) => [s.marker, s.placeholder]));

/** Literal markers in text (outside code and URLs) as placeholders, for `resolveStrays` to settle. */
export function strayPlaceholders(text: string): string {
  return text.replace(/[*_~`]/g, (c) => PLACEHOLDER_OF[c] ?? c);
}

/**
 * Gives every placeholder its character back, or a lookalike where the platform could pair it with another marker
 * of the same kind (ours, or a literal one in code or a URL) and format or break what lies between. A marker can
 * open when it does not follow a letter or digit and is followed by something other than a space, and close the
 * other way round; a run of placeholders is risky when it could open before a marker in a later run that can close,
 * or close after one in an earlier run that can open (within one run there is nothing to format: `**` alone stays as
 * it is). This is deliberately wider than the platforms' parsers, whose rules are unpublished: "letter" means ASCII
 * only, which counts more markers as able to open or close than Slack or WhatsApp may, so the error goes towards a
 * lookalike, never towards formatting. Lines are not relied on to separate.
 */
export function resolveStrays(text: string): string {
  let out = text;
  for (const { placeholder, marker, lookalike, run } of STRAYS) {
    if (!out.includes(placeholder)) continue;
    const source = out;
    const word = (k: number) => /[A-Za-z0-9]/.test(source[k] ?? "");
    const space = (k: number) => source[k] === undefined || /\s/.test(source[k] ?? "");
    const opens = (k: number) => !word(k - 1) && !space(k + 1);
    const closes = (k: number) => !space(k - 1) && !word(k + 1);
    let firstOpener = Number.POSITIVE_INFINITY;
    let lastCloser = -1;
    for (let k = 0; k < source.length; k++) {
      if (source[k] !== marker && source[k] !== placeholder) continue;
      if (opens(k)) firstOpener = Math.min(firstOpener, k);
      if (closes(k)) lastCloser = k;
    }
    out = source.replace(run, (found: string, at: number) => {
      if (!found.includes(placeholder)) return found;
      const end = at + found.length;
      // Next to a marker of ours it would change that marker's run (`**x*` is not `*` then `*x*`).
      let risky = found.includes(marker);
      for (let k = at; k < end; k++) risky ||= (opens(k) && lastCloser >= end) || (closes(k) && firstOpener < at);
      return found.replaceAll(placeholder, risky ? lookalike : marker);
    });
  }
  return out;
}
