/**
 * The parts of chatbridge imported on first use rather than at start, named as /metrics reports them
 * (`chatbridge_module_loaded{module="…"}`, 1 once loaded): the embedded chatbot API (its server, stores and
 * tokenizer; only without CHATBOT_API_URL), each platform channel with its libraries (only when a bot has it on) and
 * the media codecs (file type detection, audio decoders and resampler; on the first file a user sends). A process that
 * needs none of them boots with about half the memory (docs/benchmarks.md, boot memory).
 */
export const LAZY_PARTS = ["embedded-api", "telegram", "slack", "whatsapp", "media-codecs"] as const;

/** One of {@link LAZY_PARTS}. */
export type LazyPart = (typeof LAZY_PARTS)[number];

/** Modules are loaded once per process, so what is loaded is the process's, whichever bridge or test loaded it. */
const loaded = new Set<LazyPart>();

/**
 * A loader of `part` that runs `load` (a dynamic `import()`) on its first call and marks the part loaded once it
 * resolves; later calls share that import. A failed import is tried again on the next call.
 */
export function lazyPart<T>(part: LazyPart, load: () => Promise<T>): () => Promise<T> {
  let module: Promise<T> | undefined;
  return () => {
    module ??= load().then(
      (value) => {
        loaded.add(part);
        return value;
      },
      (error: unknown) => {
        module = undefined;
        throw error;
      },
    );
    return module;
  };
}

/** Whether `part` has been loaded in this process. */
export function isPartLoaded(part: LazyPart): boolean {
  return loaded.has(part);
}
