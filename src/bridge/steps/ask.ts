import type { AnswerEvent, AnswerFinal } from "../../client/index.js";
import { openedLater, tapped } from "../../client/stream/pass-through.js";
import type { AnswerStep, Turn } from "../answer-step.js";
import { askWithRecovery } from "../ask-with-recovery.js";
import type { OutgoingText } from "../channel.js";
import { LinkedAbort } from "../linked-abort.js";
import type { MediaPlan, MediaQuestion } from "../media/media-pipeline.js";
import { refusalText } from "../media/refusals.js";
import { type AnswerProgress, streamReply } from "../reply/reply-streamer.js";

/** Longest time the files of one question may take to download, convert and upload (a 100 MB video included). */
const MEDIA_TIMEOUT_MS = 120_000;

/** What the ledger keeps of one question: how far its answer got. */
interface AskRecord {
  /** The session it was asked in. */
  sessionId: number;
  /** The question went upstream (set before it goes): a holder resuming without an answer asks again. */
  asked: boolean;
  /** The chatbot's complete answer, once its final event came: a resuming holder delivers it without asking. */
  final?: AnswerFinal | undefined;
  /** What the platform shows of the answer so far. */
  progress?: AnswerProgress | undefined;
  /** Set when the answer is delivered: the text, as the transcript takes it. */
  delivered?: string | undefined;
  /** The user stopped the answer: no cards follow what was shown of it. */
  stopped?: boolean | undefined;
  /** The chatbot had no answer (its final said so), kept once the answer is delivered and `final` is let go. */
  noAnswer?: boolean | undefined;
}

/**
 * Asks the chatbot: the conversation's session, the media plan (files downloaded, converted and uploaded once), a
 * message for each file refused, then each question — asked once unless its answer was lost with its holder,
 * streamed into the conversation, and followed by the steps after an answer. At first contact the greeting opens
 * the first answer, in the same message, so that it never delays it.
 */
export const ask: AnswerStep = {
  name: "ask",
  async handle(turn) {
    const { config } = turn.parts;
    // The session in use is the store's until the question's own record (written before it is asked) keeps it; a
    // plan without files uploaded nothing.
    let sessionId = await turn.once(
      "session",
      async () => (await turn.bot.sessions.current(turn.conversation, turn.fence)).id,
      () => false,
    );
    const plan = await turn.once(
      "plan",
      () => planOf(turn),
      (planned) => planned.refusals.length > 0 || planned.questions.some((question) => question.fileIds.length > 0),
    );
    for (const [index, refusal] of plan.refusals.entries()) {
      const reply = refusalText(refusal, config.media, config.apologyText);
      await turn.sendOnce(`refusal:${index}`, { text: reply, format: "plain" });
    }
    const greeting = turn.firstContact ? await turn.bot.greeter.greeting() : undefined;
    if (greeting && plan.questions.length === 0) await turn.sendOnce("greeting", greeting);
    for (const [index, question] of plan.questions.entries()) {
      // Its suggestions (the chatbot's SuggestedMessage) are offered with the end of that answer.
      const opening = index === 0 && greeting ? greeting : undefined;
      sessionId = await askOne(turn, sessionId, question, index, opening);
    }
    return "handled";
  },
};

/** The questions to ask: the text, or what the files became (downloaded, converted and uploaded once). */
async function planOf(turn: Turn): Promise<MediaPlan> {
  const { batch, text } = turn;
  if (!batch.some((message) => message.media.length > 0)) {
    return { questions: [{ askType: "Text", content: text, fileIds: [] }], refusals: [] };
  }
  const { channel, pacer } = turn.attached;
  const target = turn.last.target;
  pacer
    .schedule(target, "typing", () => channel.typing(target).then(() => true), undefined, { operation: "typing" })
    .catch(() => undefined);
  const preparing = new LinkedAbort([turn.fence], MEDIA_TIMEOUT_MS);
  try {
    return await turn.parts.media.prepare(channel, turn.bot.link.client, [...batch], preparing.signal);
  } finally {
    preparing.unlink();
  }
}

/**
 * Asks question `index` and streams its answer; returns the session it was asked in (renewed if it had expired).
 * Resumed: a delivered answer is skipped, a complete one delivered from the ledger without asking, one whose
 * answer was lost with its holder asked again (the chatbot's second answer finishing the same messages).
 */
async function askOne(
  turn: Turn,
  sessionId: number,
  question: MediaQuestion,
  index: number,
  greeting: OutgoingText | undefined,
): Promise<number> {
  const { metrics, config, log, stoppers } = turn.parts;
  const { conversation, ledger, fence, attached } = turn;
  const message = turn.last;
  const step = `ask:${index}`;
  const stored = ledger.step<AskRecord>(step);
  if (stored?.delivered !== undefined) {
    // Delivered by an earlier holder: what follows the text (cards, the handoff's follow-up) continues.
    await afterDelivery(turn, stored, index);
    return stored.sessionId;
  }
  const record: AskRecord = stored ?? { sessionId, asked: false };
  const stopper = stoppers.begin(conversation);
  // Stopped by the user: end quietly with the text so far. Timed out: the apology follows.
  const asking = new LinkedAbort([stopper.signal, fence], config.answerTimeoutMs);
  const signal = asking.signal;
  const started = message.receivedAt.getTime();
  metrics.activeStreams.inc();
  try {
    let events: AsyncIterable<AnswerEvent>;
    if (record.final) {
      metrics.ledgerResumes.inc({ kind: "answered" });
      events = replay(record.final);
    } else {
      if (record.asked) {
        metrics.ledgerResumes.inc({ kind: "asked_again" });
        log.info({ conversation, step }, "the answer was lost with its holder: asking again");
      }
      record.asked = true;
      await ledger.record(step, record);
      // The reply starts at once (typing, the greeting), while the chatbot thinks.
      events = answerOf(turn, record, question, signal, () => turn.keep(step, record));
    }
    const result = await streamReply({
      channel: attached.channel,
      target: message.target,
      pacer: attached.pacer,
      // Split on the rendered length: markup can make a piece several times longer on the platform.
      measure: attached.channel.measure?.bind(attached.channel),
      events,
      signal: stopper.signal,
      fence,
      preface: greeting ? `${asMarkdown(greeting)}\n\n` : undefined,
      quickReplies: greeting?.quickReplies,
      resume: record.progress,
      answerId: `${conversation}|${ledger.jobId}|${step}`,
      onProgress: (progress) => {
        record.progress = progress;
        turn.keep(step, record);
      },
      onDiverged: () => metrics.ledgerResumes.inc({ kind: "diverged" }),
      onFirstText: () => metrics.firstTextSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000),
    });
    // An answer with no text at all would leave the user in silence.
    if (result.messages === 0 && !stopper.signal.aborted) throw new Error("the chatbot's answer was empty");
    record.delivered = result.delivered;
    // Delivered, the answer's text is in `delivered`: the final and the progress (two more copies of it, in each
    // of the job's next writes) are of no more use.
    record.noAnswer = record.final?.noAnswer === true;
    record.final = undefined;
    record.progress = undefined;
    if (stopper.signal.aborted) record.stopped = true;
    await ledger.record(step, record);
    metrics.messagesOut.inc({ channel: message.channel }, result.messages);
    metrics.answerSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000);
    await afterDelivery(turn, record, index);
    return record.sessionId;
  } catch (error) {
    if (fence.aborted || !stopper.signal.aborted) throw error;
    return record.sessionId;
  } finally {
    asking.unlink();
    stopper.end();
    metrics.activeStreams.dec();
  }
}

/** What follows a delivered answer: the turn's steps after an answer, in order, each recorded as `<name>:<index>`. */
async function afterDelivery(turn: Turn, record: AskRecord, index: number): Promise<void> {
  const answer = {
    index,
    text: record.delivered ?? "",
    noAnswer: (record.noAnswer ?? record.final?.noAnswer) === true,
    stopped: record.stopped === true,
  };
  for (const step of turn.afterAnswer) await step.handle(turn, answer, `${step.name}:${index}`);
}

/**
 * The chatbot's answer to `question`, asked in the record's session (renewed once if unknown upstream) when its
 * first event is asked for; the session it came from and its final event go into the record, `kept` each time.
 */
function answerOf(
  turn: Turn,
  record: AskRecord,
  question: MediaQuestion,
  signal: AbortSignal,
  kept: () => void,
): AsyncIterableIterator<AnswerEvent> {
  const { bot, conversation } = turn;
  return openedLater(async () => {
    const source = await askWithRecovery(
      bot.link.client,
      {
        sessionId: record.sessionId,
        content: question.content,
        chatAskType: question.askType,
        fileIds: question.fileIds,
      },
      () => bot.sessions.renew(conversation, signal),
      signal,
    );
    if (source.sessionId !== record.sessionId) {
      record.sessionId = source.sessionId;
      kept();
    }
    return tapped(source.events, (event) => {
      if (event.type === "final") {
        record.final = event;
        kept();
      }
    });
  });
}

/** A greeting as markdown to open an answer with: plain text has the characters markdown would read escaped. */
function asMarkdown(text: OutgoingText): string {
  return text.format === "markdown" ? text.text : text.text.replace(/([\\`*_[\]<>#~|])/g, "\\$1");
}

/** A complete answer from the ledger, as the stream it came in would end. */
async function* replay(final: AnswerFinal): AsyncGenerator<AnswerEvent> {
  yield final;
}
