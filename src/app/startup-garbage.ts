import { Session } from "node:inspector";

/**
 * Collects, once the process is up, the garbage that loading and compiling its modules left: some 20 MiB of heap
 * that V8 otherwise keeps until its memory reducer happens to run, seconds or minutes later, so that until then
 * the process looks a quarter bigger than it is (about 100 MiB resident at boot instead of about 83 for a bridge
 * with a remote chatbot API and one channel; docs/benchmarks.md, boot memory). One full collection through an
 * in-process inspector session, which needs no flag and opens no port; it pauses the process for some tens of
 * milliseconds, after the banner, when nothing is waiting yet. Never throws: a Node built without the inspector
 * simply keeps its garbage a little longer.
 */
export async function collectStartupGarbage(): Promise<void> {
  let session: Session | undefined;
  try {
    session = new Session();
    session.connect();
    const connected = session;
    await new Promise<void>((resolve) => connected.post("HeapProfiler.collectGarbage", () => resolve()));
  } catch {
    // Nothing to do: the memory reducer will collect it.
  } finally {
    session?.disconnect();
  }
}
