import type { WorkItem } from "./store/work-queue.js";
import { isMessagePayload, readPayload } from "./work-payload.js";

/** However long pieces keep coming, an album waits at most this many windows after its first piece. */
const MAX_ALBUM_WINDOWS = 4;

/** What a conversation's holder does next with its waiting items. */
export type BatchChoice =
  /** Answer these items together now (one question, in their order). */
  | { kind: "answer"; items: WorkItem[] }
  /** The batch ends with an album that may still be growing: wait up to `waitMs` for another piece first. */
  | { kind: "wait"; waitMs: number };

/** How batches are formed. */
export interface BatchRules {
  /** `queue`: one message per answer (an album counts as one); `merge`: everything waiting becomes one question. */
  mode: "queue" | "merge";
  /** How long after the last piece of an album the bridge waits for another (MEDIA_GROUP_WINDOW_MS; 0 = none). */
  albumWindowMs: number;
  now: number;
}

/**
 * Picks the next batch from a conversation's waiting items (oldest first). A handoff event, or an item that cannot be
 * read, is a batch of its own. Messages form a run up to the next handoff event: the first message alone in `queue`
 * mode, the whole run in `merge` mode — and in either mode the pieces of an album (Telegram's media_group_id,
 * WhatsApp's pictures) stay together: when the run ends with an album whose last piece came less than a window ago
 * (and whose first came less than four windows ago), the holder waits for more rather than asking about half of it.
 * Because the choice is made from the durable items, pieces delivered to different instances end up together.
 */
export function nextBatch(items: WorkItem[], rules: BatchRules): BatchChoice | undefined {
  const [head] = items;
  if (head === undefined) return undefined;
  const headAlbum = albumOf(head);
  if (headAlbum === null) return { kind: "answer", items: [head] };
  const batch: WorkItem[] = [head];
  for (const item of items.slice(1)) {
    const album = albumOf(item);
    if (album === null) break;
    // In queue mode only the rest of the head's album joins it.
    if (rules.mode === "queue" && (headAlbum === undefined || album !== headAlbum)) break;
    batch.push(item);
  }
  const last = batch.at(-1) as WorkItem;
  const album = albumOf(last);
  // A message after the album (of any kind) closes it, as the platforms send an album's pieces back to back.
  if (album && rules.albumWindowMs > 0 && batch.length === items.length) {
    const pieces = trailingAlbum(batch, album);
    const first = (pieces[0] as WorkItem).enqueuedAt;
    const until = Math.min(last.enqueuedAt + rules.albumWindowMs, first + MAX_ALBUM_WINDOWS * rules.albumWindowMs);
    if (until > rules.now) return { kind: "wait", waitMs: until - rules.now };
  }
  return { kind: "answer", items: batch };
}

/**
 * The album of a message item (undefined when it has none), or null when the item is not a readable message (a
 * handoff event or damaged), which ends a run.
 */
function albumOf(item: WorkItem): string | undefined | null {
  const payload = readPayload(item.payload);
  return isMessagePayload(payload) ? payload.message.album : null;
}

/** The pieces of `album` at the end of `batch`. */
function trailingAlbum(batch: WorkItem[], album: string): WorkItem[] {
  let start = batch.length;
  while (start > 0 && albumOf(batch[start - 1] as WorkItem) === album) start -= 1;
  return batch.slice(start);
}
