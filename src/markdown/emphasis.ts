/**
 * CommonMark's emphasis delimiters: classifying a run of `*`, `_` or `~` (flanking) and pairing the runs up
 * (process emphasis, with the rule of three), so `2 * 3`, `snake_case_name` and an unbalanced `**` stay literal.
 */

const WHITESPACE = /\s/u;
const PUNCTUATION = /[\p{P}\p{S}]/u;

/** A run of emphasis markers in a flat node list, before or while it is matched. */
export interface Delimiter {
  t: "delim";
  ch: "*" | "_" | "~";
  /** What is left of the run; matching uses it up from the inside. */
  len: number;
  canOpen: boolean;
  canClose: boolean;
  /** The run's length before matching, for the rule of three. */
  origLen: number;
}

/** What a matched pair means: `**` bold, `*` or `_` italic, `~~` strikethrough. */
export type EmphasisStyle = "b" | "i" | "s";

/**
 * Classifies the run of `run` × `ch` at `at`. `wordChar`, when given, names the characters between which `*` and
 * `~` can neither open nor close, as `_` never does inside a word; without it the rules are CommonMark's.
 */
export function flanking(
  text: string,
  at: number,
  run: number,
  ch: Delimiter["ch"],
  wordChar?: (ch: string) => boolean,
): Delimiter {
  const before = text[at - 1] ?? " ";
  const after = text[at + run] ?? " ";
  const beforeSpace = WHITESPACE.test(before);
  const afterSpace = WHITESPACE.test(after);
  const beforePunct = PUNCTUATION.test(before);
  const afterPunct = PUNCTUATION.test(after);
  const left = !afterSpace && (!afterPunct || beforeSpace || beforePunct);
  const right = !beforeSpace && (!beforePunct || afterSpace || afterPunct);
  const inWord = wordChar?.(before) && wordChar(after);
  // `_` inside a word (snake_case) is never emphasis.
  const canOpen = ch === "_" ? left && (!right || beforePunct) : left && !inWord;
  const canClose = ch === "_" ? right && (!left || afterPunct) : right && !inWord;
  return { t: "delim", ch, len: run, canOpen, canClose, origLen: run };
}

/** Whether a node is a delimiter run (matched or not). */
export function isDelimiter(node: { t: string } | undefined): node is Delimiter {
  return node?.t === "delim";
}

/**
 * CommonMark's "process emphasis", on a flat node list: innermost matches first, leftovers stay literal. `span`
 * builds the renderer's node for a match; when it declines (undefined), the closer stays literal, and so does
 * everything that would enclose it.
 */
export function matchEmphasis<N extends { t: string }>(
  nodes: (N | Delimiter)[],
  span: (style: EmphasisStyle, children: (N | Delimiter)[]) => N | undefined,
): (N | Delimiter)[] {
  /** Delimiters at or below this index can no longer open anything. */
  let floor = -1;
  for (let c = 0; c < nodes.length; ) {
    const closer = nodes[c];
    if (!isDelimiter(closer) || !closer.canClose) {
      c++;
      continue;
    }
    const o = findOpener(nodes, c, closer, floor);
    if (o === -1) {
      c++;
      continue;
    }
    const opener = nodes[o] as Delimiter;
    const used = closer.ch === "~" || (opener.len >= 2 && closer.len >= 2) ? 2 : 1;
    const style = closer.ch === "~" ? "s" : used === 2 ? "b" : "i";
    const node = span(style, nodes.slice(o + 1, c));
    if (node === undefined) {
      floor = c;
      c++;
      continue;
    }
    nodes.splice(o + 1, c - o - 1, node);
    opener.len -= used;
    closer.len -= used;
    c = o + 2;
    if (opener.len === 0) {
      nodes.splice(o, 1);
      c--;
    }
    if (closer.len === 0) nodes.splice(c, 1);
  }
  return nodes;
}

function findOpener(nodes: { t: string }[], c: number, closer: Delimiter, floor: number): number {
  for (let o = c - 1; o > floor; o--) {
    const node = nodes[o];
    if (!isDelimiter(node) || node.ch !== closer.ch || !node.canOpen || node.len === 0) continue;
    // The rule of three: `*foo**bar*` is one emphasis, not two broken ones.
    const both = node.canClose || closer.canOpen;
    if (both && (node.origLen + closer.origLen) % 3 === 0 && !(node.origLen % 3 === 0 && closer.origLen % 3 === 0))
      continue;
    return o;
  }
  return -1;
}
