import { describe, expect, it } from "vitest";
import type { AnswerEvent } from "../../../src/client/answer-events.js";
import { ChatbotApiError } from "../../../src/client/errors.js";
import { answerFromEnvelopeData, readAnswerObject } from "../../../src/client/stream/answer-objects.js";
import { decodeAnswerStream } from "../../../src/client/stream/decode-answer-stream.js";
import { seededRandom } from "../../../src/server/seeded-random.js";

const OPERATION = "ClientAsk";
// Escaped quotes and backslashes (one right before a closing quote), `}{`, newlines, `data:`, emoji, CJK.
const fragments = [
  "Hello",
  ', "quoted" and \\ back',
  "slash\\",
  '\\"}{\n',
  "data: x",
  "Ünïcödé 🏡 東京駅",
  "\t\u2028end",
];
const whole = fragments.join("");
const objects = [
  ...fragments.map((content) => ({ content })),
  { QuestionID: 11, AnswerID: 12, Answer: whole, TotalToken: 42 },
];
const delta = (content: string): AnswerEvent => ({ type: "delta", content });
function finalEvent(questionId: number | undefined, answerId: number, answer: string, totalToken = 0): AnswerEvent {
  return { type: "final", questionId, answerId, answer, totalToken, noAnswer: undefined };
}
const expected = [...fragments.map(delta), finalEvent(11, 12, whole, 42)];

const json = (value: unknown) => JSON.stringify(value);
const framings: Record<string, string> = {
  sse: [
    ": keep-alive comment\n\n",
    "retry: 3000\n",
    ...objects.map((o, i) => `id: ${i}\nevent: message\ndata: ${json(o)}\n\n`),
    "data: [DONE]\n\n",
  ].join(""),
  // The usual shape, which the decoder reads without the SSE parser; with and without the space after
  // `data:`, and one event whose two data lines hold an object each.
  "sse with bare data lines": [
    `data: ${json(objects[0])}\ndata:${json(objects[1])}\n\n`,
    ...objects.slice(2).map((o, i) => `data:${i % 2 ? "" : " "}${json(o)}\n\n`),
    ": done\n\ndata: [DONE]\n\n",
  ].join(""),
  "sse with CRLF and keep-alives": [
    ...objects.map((o) => `data: ${json(o)}\r\n\r\n: ping\r\n\r\ndata: {}\r\n\r\n`),
    "data: [DONE]\r\n\r\n",
  ].join(""),
  "ndjson with CRLF": objects.map((o) => `${json(o)}\r\n`).join(""),
  ndjson: `${objects.map((o) => `${json(o)}\n`).join("")}{"ping":1}\n`,
  concatenated: objects.map(json).join(""),
  "concatenated with whitespace and keep-alives": `\n ${objects.map(json).join(" {} \n\t")}  `,
};

const encode = (text: string) => new TextEncoder().encode(text);

async function* chunksOf(chunks: (Uint8Array | string)[]): AsyncGenerator<Uint8Array | string> {
  for (const chunk of chunks) yield chunk;
}

async function collect(chunks: (Uint8Array | string)[]): Promise<AnswerEvent[]> {
  const events: AnswerEvent[] = [];
  for await (const event of decodeAnswerStream(chunksOf(chunks), { operation: OPERATION })) events.push(event);
  return events;
}

/** What decoding yields: the events, then the failure's message if it failed. */
async function outcome(chunks: (Uint8Array | string)[]): Promise<{ events: AnswerEvent[]; error?: string }> {
  const events: AnswerEvent[] = [];
  try {
    for await (const event of decodeAnswerStream(chunksOf(chunks), { operation: OPERATION })) events.push(event);
    return { events };
  } catch (error) {
    return { events, error: (error as Error).message };
  }
}

/** A body that notes whether the decoder released it; with `hang`, it stays open after its chunks. */
function trackedBody(chunks: string[], hang = false) {
  const state = { released: false };
  const body = (async function* () {
    try {
      for (const chunk of chunks) yield encode(chunk);
      if (hang) await new Promise(() => {});
    } finally {
      state.released = true;
    }
  })();
  return { body, state };
}

/** Decodes until the expected failure; string sources are sent as one UTF-8 chunk per string. */
async function failure(source: AsyncIterable<Uint8Array | string> | string[]) {
  const events: AnswerEvent[] = [];
  const body = Array.isArray(source) ? chunksOf(source.map(encode)) : source;
  const options = { operation: OPERATION, contentType: "text/html" };
  try {
    for await (const event of decodeAnswerStream(body, options)) events.push(event);
  } catch (error) {
    expect(error).toBeInstanceOf(ChatbotApiError);
    return { error: error as ChatbotApiError, events };
  }
  throw new Error(`expected a failure, got ${JSON.stringify(events)}`);
}

describe("decodeAnswerStream framings", () => {
  for (const [name, wire] of Object.entries(framings)) {
    const bytes = encode(wire);

    it(`decodes ${name} in one chunk, one byte at a time and from string chunks`, async () => {
      expect(await collect([bytes])).toEqual(expected);
      expect(await collect(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)))).toEqual(expected);
      expect(await collect(wire.match(/[\s\S]{1,7}/gu) ?? [])).toEqual(expected);
    });

    it(`decodes ${name} cut in two at every byte`, async () => {
      for (let at = 1; at < bytes.length; at++) {
        expect(await collect([bytes.subarray(0, at), bytes.subarray(at)]), `cut at ${at}`).toEqual(expected);
      }
    });
  }

  it("splits an SSE event whose data holds several objects, and takes a last event without blank line", async () => {
    const wire = `data: {"content":"a"}{"content":"b"} {}\n\ndata: {"AnswerID":3,"Answer":"ab"}`;
    expect(await collect([encode(wire)])).toEqual([delta("a"), delta("b"), finalEvent(undefined, 3, "ab")]);
  });

  it("skips a byte order mark and leading blank lines", async () => {
    expect(await collect([new Uint8Array([0xef, 0xbb, 0xbf]), encode(`\r\n\n  ${framings.ndjson}`)])).toEqual(expected);
    expect(await collect([encode(`\n\n${framings.sse}`)])).toEqual(expected);
  });

  it("reads member names in any case and numbers sent as strings", async () => {
    const wire = '{"Content":"a"}\n{"CONTENT":"b"}\n{"questionId":"7","answerid":"8","answer":"ab","totalToken":"9"}';
    expect(await collect([encode(wire)])).toEqual([delta("a"), delta("b"), finalEvent(7, 8, "ab", 9)]);
  });

  it("stops at the final: what follows is neither read nor checked, and the body is released", async () => {
    // A server that keeps the connection open after the final.
    const { body, state } = trackedBody(['{"content":"a"}{"AnswerID":1,"Answer":"a"}{"content":"b"}<html>'], true);
    const events: AnswerEvent[] = [];
    for await (const event of decodeAnswerStream(body, { operation: OPERATION })) events.push(event);
    expect(events).toEqual([delta("a"), finalEvent(undefined, 1, "a")]);
    expect(state.released).toBe(true);
  });

  it("yields what each chunk completes without waiting for more bytes, a final cut into many chunks too", async () => {
    const final = json({ AnswerID: 1, Answer: `a ${"long answer, ".repeat(400)}` });
    const wires = [
      `data: {"content":"a"}\n\ndata: ${final}\n\n`,
      `data: {"content":"a"}\r\n\r\ndata: ${final}\r\n\r\n`,
      `{"content":"a"}\n${final}`,
      `{"content":"a"} ${final}`,
    ];
    for (const wire of wires) {
      // The body stays open after its last chunk: only a decoder that waits for more bytes would hang here.
      const { body, state } = trackedBody(wire.match(/[\s\S]{1,100}/g) ?? [], true);
      const events: AnswerEvent[] = [];
      for await (const event of decodeAnswerStream(body, { operation: OPERATION })) events.push(event);
      expect(events, wire.slice(0, 30)).toEqual([delta("a"), finalEvent(undefined, 1, JSON.parse(final).Answer)]);
      expect(state.released).toBe(true);
    }
  });

  it("reads bad UTF-8 in deltas and finals as the text decoder does, from bytes in any grouping", async () => {
    const bytes = (...parts: (string | number[] | Buffer)[]) =>
      Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))));
    // A lone continuation byte, a sequence cut before the closing quote, an overlong form, an encoded
    // surrogate, a byte that is never UTF-8, next to escapes and to good non-ASCII text.
    const bad = [[0x80], [0xe6, 0x9d], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff]];
    const contents = bad.flatMap((b) => [bytes('{"content":"a', b, '"}'), bytes('{"content":"\\"é', b, '\\n"}')]);
    const final = bytes('{"AnswerID":1,"Answer":"x', [0xf0, 0x9f, 0x8f], '"}');
    const wires = [
      Buffer.concat([
        ...contents.flatMap((c) => [Buffer.from("data: "), c, Buffer.from("\n\n")]),
        bytes("data:", final),
      ]),
      Buffer.concat([...contents.flatMap((c) => [c, Buffer.from("\n")]), final]),
      Buffer.concat([...contents, final]),
    ];
    for (const wire of wires) {
      // The text path reads what the decoder made of the whole body at once.
      const want = await collect([new TextDecoder().decode(wire)]);
      expect(want).toHaveLength(contents.length + 1);
      expect(want[0]).toEqual(delta("a\ufffd"));
      expect(await collect([wire])).toEqual(want);
      for (let at = 1; at < wire.length; at++) {
        expect(await collect([wire.subarray(0, at), wire.subarray(at)]), `cut at ${at}`).toEqual(want);
      }
    }
  });

  it("reads every JSON escape in deltas from the bytes as JSON.parse does, and fails on a bad one as the text path does", async () => {
    // Literals as a server may write them: every short escape, \u in both cases, surrogates paired and alone, an
    // escaped backslash before what looks like an escape, escapes at both ends and next to non-ASCII text.
    const literals = [
      "a\\/b\\b\\f\\n\\r\\t",
      "\\u00e9t\\u00E9",
      "\\ud83c\\udfe1 and \\ud83c alone",
      "\\u0000\\u001F",
      "x\\\\u0041\\\\",
      '\\"quoted\\"',
      "é\\n東\\u6771🏡\\t",
    ];
    const bad = ["\\q", "a\\u12", "\\u12G4", "é\\x41"];
    const framings = [
      (objects: string[]) => objects.map((object) => `data: ${object}\n\n`).join(""),
      (objects: string[]) => objects.map((object) => `${object}\n`).join(""),
      (objects: string[]) => objects.join(""),
    ];
    const final = '{"AnswerID":1,"Answer":"done"}';
    for (const frame of framings) {
      const good = Buffer.from(frame([...literals.map((literal) => `{"content":"${literal}"}`), final]));
      const want = await outcome([good.toString()]);
      expect(want.events.slice(0, literals.length)).toEqual(literals.map((l) => delta(JSON.parse(`"${l}"`))));
      for (let at = 1; at < good.length; at += 3) {
        expect(await outcome([good.subarray(0, at), good.subarray(at)]), `cut at ${at}`).toEqual(want);
      }
      for (const literal of bad) {
        const wire = Buffer.from(frame(['{"content":"ok"}', `{"content":"${literal}"}`, final]));
        const failed = await outcome([wire.toString()]);
        expect(failed.error, literal).toMatch(/not valid JSON|not an answer stream/);
        expect(await outcome([wire]), literal).toEqual(failed);
      }
    }
  });

  it("ends a cut character at the end of an SSE data line there, as the text decoder does", async () => {
    const wire = Buffer.concat([
      Buffer.from('data: {"content":"a"}\n\ndata: {"ping":1}'),
      Buffer.from([0xe6, 0x9d]),
      Buffer.from('\n\ndata: {"AnswerID":1,"Answer":"a"}\n\n'),
    ]);
    const want = await outcome([new TextDecoder().decode(wire)]);
    expect(want.error).toMatch(/not an answer stream/);
    expect(await outcome([wire])).toEqual(want);
  });

  it("keeps a U+FEFF inside the body and reads an SSE line cut by a carriage return as the parser does", async () => {
    const mark = "\ufeff";
    const wires = [
      `{"content":"${mark}a"}\n{"content":"b"}{"AnswerID":1,"Answer":"${mark}ab"}`,
      `data: {"content":"${mark}a"}\n\ndata: {"content":"b"}\rid: 4\n\ndata: {"AnswerID":1,"Answer":"${mark}ab"}\n\n`,
    ];
    for (const wire of wires) {
      const want = [delta(`${mark}a`), delta("b"), finalEvent(undefined, 1, `${mark}ab`)];
      expect(await collect([encode(wire)]), wire).toEqual(want);
      expect(await collect([encode(`data: {"content":"x"}\n\n`).subarray(0, 0), encode(wire)])).toEqual(want);
    }
  });

  it("reads a long value spanning chunks and what follows it in the same chunk", async () => {
    const long = "long answer, ".repeat(3000);
    const wires = [
      // A long delta, then more deltas and the final in the chunk that ends it.
      `{"content":"${long}"}\n{"content":"b"}{"AnswerID":1,"Answer":"${long}b"}`,
      `data: {"content":"${long}"}\n\ndata: {"content":"b"}\n\ndata: {"AnswerID":1,"Answer":"${long}b"}\n\n`,
      // A long object that is not the final, then the final.
      `{"ping":"${long}"} {"content":"${long}"}{"content":"b"} {"AnswerID":1,"Answer":"${long}b"}`,
      `data: {"ping":"${long}"}\n\ndata: {"content":"${long}"}\n\ndata: {"content":"b"}\n\ndata: {"AnswerID":1,"Answer":"${long}b"}\n\ndata: [DONE]\n\n`,
    ];
    for (const wire of wires) {
      const want = [delta(long), delta("b"), finalEvent(undefined, 1, `${long}b`)];
      for (const size of [1000, 4096, 65536]) {
        const bytes = encode(wire);
        const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
          bytes.subarray(i * size, (i + 1) * size),
        );
        expect(await collect(chunks), `${wire.slice(0, 12)} in ${size}-byte chunks`).toEqual(want);
      }
    }
  });

  it("serves calls to next() made without waiting, in order, and done after the final", async () => {
    const wire = ['{"content":"a"}', '{"content":"b"}{"AnswerID":1,"Answer":"ab"}'];
    const events = decodeAnswerStream(chunksOf(wire.map(encode)), { operation: OPERATION });
    const results = await Promise.all([events.next(), events.next(), events.next(), events.next()]);
    expect(results).toEqual([
      { done: false, value: delta("a") },
      { done: false, value: delta("b") },
      { done: false, value: finalEvent(undefined, 1, "ab") },
      { done: true, value: undefined },
    ]);
  });

  it("releases the body when the consumer stops early", async () => {
    const { body, state } = trackedBody(['{"content":"word "}\n{"content":"more"}'], true);
    for await (const event of decodeAnswerStream(body, { operation: OPERATION })) {
      expect(event).toEqual(delta("word "));
      break;
    }
    expect(state.released).toBe(true);
  });
});

describe("decodeAnswerStream answers given as an envelope", () => {
  const envelope = (data: unknown) => json({ Data: data, Version: "1.0.0", Success: true, Code: 200, Message: "" });

  it("turns a plain ClientAsk envelope into one delta and the final", async () => {
    const data = { messageid: 5, content: "hello", totalToken: 7, noAnswer: false };
    expect(await collect([encode(envelope(data))])).toEqual([
      delta("hello"),
      { ...finalEvent(undefined, 5, "hello", 7), noAnswer: false },
    ]);
  });

  it("reads a successful envelope whose Data is the final object", async () => {
    const wire = `data: {"content":"hi"}\n\ndata: ${envelope({ QuestionID: 1, AnswerID: 2, Answer: "hi", TotalToken: 3 })}\n\n`;
    expect(await collect([encode(wire)])).toEqual([delta("hi"), finalEvent(1, 2, "hi", 3)]);
  });

  it("answerFromEnvelopeData reads both shapes and rejects others", () => {
    const read = (data: unknown) => answerFromEnvelopeData(OPERATION, data);
    const plain = read({ MessageID: "4", Content: "x", TotalToken: 2, NoAnswer: true });
    expect(plain).toEqual({ content: "x", messageId: 4, totalToken: 2, noAnswer: true });
    expect(read({ messageid: 4, content: null, noAnswer: true })).toMatchObject({ content: "", totalToken: 0 });
    const finalShaped = read({ AnswerID: 9, Answer: "y", TotalToken: 1 });
    expect(finalShaped).toEqual({ content: "y", messageId: 9, totalToken: 1, noAnswer: undefined });
    expect(() => answerFromEnvelopeData(OPERATION, null)).toThrow(ChatbotApiError);
    expect(() => answerFromEnvelopeData(OPERATION, { content: "no id" })).toThrow("no valid messageid");
    expect(() => answerFromEnvelopeData(OPERATION, { messageid: 1, content: 5 })).toThrow("content is not text");
  });
});

describe("decodeAnswerStream from bytes and from text", () => {
  // Pieces of deltas: escapes (a control character and a lone surrogate are written \u0001 and \ud83d),
  // characters of two to four bytes, a byte order mark, separators, structure.
  const PIECES = [
    "word ",
    '"',
    "\\",
    "\n",
    "é",
    "東京",
    "🏡",
    "\ufeff",
    "\u2028",
    "}{",
    "data: ",
    "\t",
    "{}",
    "\u0001",
    "\ud83d",
  ];
  const BAD_BYTES = [[0xff], [0xe6, 0x9d], [0x80], [0xc0, 0xaf]];

  /** A random answer stream in a random framing, now and then with bad UTF-8 inside a delta or stray objects. */
  function randomWire(next: () => number): Buffer {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const deltas = Array.from({ length: 1 + Math.floor(next() * 12) }, () =>
      Array.from({ length: Math.floor(next() * 5) }, () => pick(PIECES)).join(""),
    );
    const objects: Buffer[] = deltas.map((content) => {
      const text = json({ content });
      if (next() > 0.15) return Buffer.from(text);
      const cut = text.length - 2;
      return Buffer.concat([
        Buffer.from(text.slice(0, cut)),
        Buffer.from(pick(BAD_BYTES)),
        Buffer.from(text.slice(cut)),
      ]);
    });
    if (next() < 0.3) objects.splice(Math.floor(next() * objects.length), 0, Buffer.from(pick(["{}", '{"ping":1}'])));
    objects.push(Buffer.from(json({ AnswerID: 7, Answer: deltas.join("").repeat(1 + Math.floor(next() * 300)) })));
    const framing = pick(["sse", "sse bare", "sse crlf", "ndjson", "concatenated"] as const);
    const parts: Buffer[] = [];
    for (const object of objects) {
      if (framing === "ndjson") parts.push(object, Buffer.from(next() < 0.5 ? "\n" : "\r\n"));
      else if (framing === "concatenated") parts.push(object, Buffer.from(pick(["", " ", "\n\t"])));
      else {
        if (next() < 0.2) parts.push(Buffer.from(pick([": ping\n\n", "id: 3\n", "event: message\n"])));
        const end = framing === "sse crlf" ? "\r\n\r\n" : "\n\n";
        parts.push(Buffer.from(framing === "sse bare" ? "data:" : "data: "), object, Buffer.from(end));
      }
    }
    if (framing.startsWith("sse")) parts.push(Buffer.from("data: [DONE]\n\n"));
    return Buffer.concat(parts);
  }

  it("yields the same from the bytes, cut anywhere, as from the whole body decoded as text", async () => {
    const next = seededRandom(17);
    for (let round = 0; round < 150; round++) {
      const wire = randomWire(next);
      const want = await outcome([new TextDecoder().decode(wire)]);
      for (let cutting = 0; cutting < 3; cutting++) {
        const chunks: Uint8Array[] = [];
        for (let at = 0; at < wire.length; ) {
          const size = 1 + Math.floor(next() * (cutting === 0 ? 8 : cutting === 1 ? 200 : 20_000));
          chunks.push(wire.subarray(at, at + size));
          at += size;
        }
        expect(await outcome(chunks), `round ${round}, ${chunks.length} chunks`).toEqual(want);
      }
    }
  });
});

describe("decodeAnswerStream failures", () => {
  const tooMany = { Data: null, Version: "1.0.0", Success: false, Code: 429, Message: "Too many messages" };

  for (const [name, wire] of [
    ["sse", `data: {"content":"Part "}\n\ndata: {"content":"one"}\n\ndata: ${json(tooMany)}\n\n`],
    ["ndjson", `{"content":"Part "}\n{"content":"one"}\n${json(tooMany)}\n{"content":"ignored"}\n`],
  ] as const) {
    it(`turns an error envelope in ${name} into an envelope error with the text so far`, async () => {
      const bytes = encode(wire);
      for (const chunks of [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))]) {
        const { error, events } = await failure(chunksOf(chunks));
        expect(error).toMatchObject({ kind: "envelope", code: 429, partialText: "Part one" });
        expect(error.message).toBe("ClientAsk: Too many messages");
        expect(events).toEqual([delta("Part "), delta("one")]);
      }
    });
  }

  it("reports an SSE error event without an envelope with its text", async () => {
    const { error } = await failure(['data: {"content":"so far"}\n\nevent: error\ndata: upstream overloaded\n\n']);
    expect(error).toMatchObject({ kind: "envelope", partialText: "so far", message: "ClientAsk: upstream overloaded" });
  });

  it("reads an SSE error event as an error even when its data looks like a delta", async () => {
    const wire = 'data: {"content":"so far"}\n\nevent: error\ndata: {"content":"x"}\n\ndata: {"content":"y"}\n\n';
    const cuts = Array.from(wire, (_, at) => [wire.slice(0, at), wire.slice(at)]);
    for (const chunks of [wire.split(""), ...cuts]) {
      const { error, events } = await failure(chunks);
      expect(error).toMatchObject({ kind: "envelope", partialText: "so far", message: 'ClientAsk: {"content":"x"}' });
      expect(events).toEqual([delta("so far")]);
    }
  });

  it("reports a stream that ends before the final as incomplete, with the partial text", async () => {
    for (const wire of [
      '{"content":"Half an "}\n{"content":"answer"}\n',
      '{"content":"Half an "}{"content":"answer"}{"AnswerID":1,"Ans',
      'data: {"content":"Half an "}\n\ndata: {"content":"answer"}\n\ndata: {"Answer',
      'data: {"content":"Half an "}\n\ndata: {"content":"answer"}\n\ndata: [DONE]\n\n',
    ]) {
      const { error, events } = await failure([wire]);
      expect(error.kind).toBe("incomplete");
      expect(error.partialText).toBe("Half an answer");
      expect(error.message).toContain("ended before the final answer");
      expect(events).toHaveLength(2);
    }
    expect((await failure([""])).error).toMatchObject({ kind: "incomplete", partialText: undefined });
  });

  it("rebuilds the partial text of a long body that came in small byte and text chunks, cut inside characters", async () => {
    // Over a few KiB, so the kept body grows several times.
    const pieces = Array.from({ length: 120 }, (_, i) => `Ünïcödé 🏡 東京駅 ${i} `);
    const wire = pieces.map((content) => `data: ${json({ content })}\n\n`).join("");
    const characters = Array.from(wire);
    const chunks: (Uint8Array | string)[] = [];
    for (let at = 0, i = 0; at < characters.length; at += 9 + (i % 13), i++) {
      const piece = characters.slice(at, at + 9 + (i % 13)).join("");
      // Every fifth piece comes as text (a web stream of strings); the others as bytes, cut in two mid-character.
      if (i % 5 === 4) chunks.push(piece);
      else {
        const bytes = encode(piece);
        const cut = bytes.findIndex((byte) => byte >= 0xc0) + 1 || bytes.length >> 1;
        chunks.push(bytes.subarray(0, cut), bytes.subarray(cut));
      }
    }
    const { error, events } = await failure(chunksOf(chunks));
    expect(error.kind).toBe("incomplete");
    expect(error.partialText).toBe(pieces.join(""));
    expect(events).toEqual(pieces.map(delta));
  });

  it("reports an HTML page as malformed, quoting its first 80 characters", async () => {
    const page = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>${"nginx ".repeat(40)}`;
    const quoted = JSON.stringify(page.slice(0, 80));
    for (const chunks of [[page], page.split("")]) {
      const { error } = await failure(chunks);
      expect(error.kind).toBe("malformed");
      expect(error.message).toContain(quoted);
      expect(error.message).toContain("text/html");
    }
    expect((await failure(["Bad Gateway"])).error.message).toContain('"Bad Gateway"');
    const { error, events } = await failure(['{"content":"ok"}\nInternal Server Error']);
    expect(error).toMatchObject({ kind: "malformed", partialText: "ok" });
    expect(events).toEqual([delta("ok")]);
  });

  it("reports stray text after the objects at once, while the body stays open", async () => {
    const { body } = trackedBody(['{"content":"ok"}\n', `  Internal Server Error ${"x".repeat(80)}`], true);
    const { error, events } = await failure(body);
    expect(error).toMatchObject({ kind: "malformed", partialText: "ok" });
    expect(error.message).toContain("Internal Server Error");
    expect(events).toEqual([delta("ok")]);
  });

  it("reports objects that are not JSON or not answer objects as malformed", async () => {
    const cases: [string, string][] = [
      ['{"content":"a"}\n{"content": nope}\n', '"{\\"content\\": nope}"'],
      ['{"content":"a"}{"content":"bad \\x escape"}', "not valid JSON"],
      ['data: {"content":"a"}\n\ndata: {"content":\n\n{"AnswerID":1}\n\n', "not valid JSON"],
      ['{"content":"a"}{"content":5}', "content is not a string"],
      ['{"content":"a"}{"content":null}', "content is not a string"],
      ['{"content":"a"}{"Answer":"a","TotalToken":1}', "no valid AnswerID"],
      ['{"content":"a"}{"AnswerID":"twelve","Answer":"a"}', "no valid AnswerID"],
      ['{"content":"a"}{"AnswerID":1,"TotalToken":"many"}', "TotalToken is not a number"],
      ['{"content":"a","x":"raw \u0001 control"}', "not valid JSON"],
      ['{"content":"a"}{"Data":null,"Success":true,"Code":200,"Message":""}', "Data is not an object"],
      ['data: {"content":"a"}\n\ndata: "a bare string"\n\n', "not an object"],
      ['data: {"content":"a"}\n\ndata: [1, 2]\n\n', "not an object"],
    ];
    for (const [wire, detail] of cases) {
      const { error } = await failure([wire]);
      expect(error.kind, wire).toBe("malformed");
      expect(error.message, wire).toContain(detail);
      // Every case but the raw control character follows a first delta "a".
      expect(error.partialText, wire).toBe(wire.includes('"x"') ? undefined : "a");
    }
  });

  it("rethrows a failing body as a transport error carrying the partial text", async () => {
    const failing = async function* (wire: string, err: Error) {
      yield encode(wire);
      throw err;
    };
    const wire = 'data: {"content":"Before "}\n\ndata: {"content":"the stall"}\n\n';
    const stalled = Object.assign(new Error("Body Timeout Error"), { code: "UND_ERR_BODY_TIMEOUT" });
    const reset = Object.assign(new Error("other side closed"), { code: "ECONNRESET" });
    const timeout = (await failure(failing(wire, stalled))).error;
    expect(timeout).toMatchObject({ kind: "timeout", partialText: "Before the stall" });
    const { error } = await failure(failing(wire, reset));
    expect(error).toMatchObject({ kind: "connection", partialText: "Before the stall", cause: reset });
    expect(error.message).toContain("ECONNRESET");
    // An event still waiting for its blank line when the body failed is not part of the partial text.
    const cut = await failure(failing('data: {"content":"a"}\n\ndata: {"content":"b"}', reset));
    expect(cut.error.partialText).toBe("a");
    expect(cut.events).toEqual([delta("a")]);
  });

  it("stops with an aborted error once the signal fires, and releases the body", async () => {
    const controller = new AbortController();
    const { body, state } = trackedBody(['{"content":"one"}{"content":"two"}', '{"content":"three"}']);
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of decodeAnswerStream(body, { operation: OPERATION, signal: controller.signal })) {
        if (event.type === "delta") seen.push(event.content);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: "ChatbotApiError", kind: "aborted", partialText: "onetwo" });
    expect(seen).toEqual(["one"]);
    expect(state.released).toBe(true);
  });
});

describe("readAnswerObject", () => {
  const read = (text: string) => readAnswerObject(OPERATION, text, () => "");

  it("reads plain deltas exactly as JSON.parse would, and rejects what it rejects", () => {
    const samples = ["", "a", '"', "\\", "\\u0041", "\n\r\t\b\f", "/", "</script>", "😀", "\ud83d", "東京", "}{"];
    for (const content of samples) expect(read(JSON.stringify({ content }))).toEqual(delta(content));
    expect(read('{"content":"\\u00e9t\\u00E9"}')).toEqual(delta("été"));
    for (const text of ['{"content":"\t"}', '{"content":"\\q"}', '{"content":"\\u12"}', '{"content":"a"']) {
      expect(() => read(text), text).toThrow(SyntaxError);
    }
  });

  it("ignores keep-alives and objects of no known shape", () => {
    for (const text of ["{}", '{"ping":1}', '{"type":"heartbeat"}']) expect(read(text)).toBeUndefined();
  });
});
