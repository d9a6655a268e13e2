/**
 * Slack's keys in the bridge store. Every user of the store keeps its keys in a file like this one; test/architecture/store-keys.test.ts
 * checks that no two of them collide (see src/bridge/store/key-prefixes.ts).
 */

/** `slack-thread:<bot>:<channel>:<thread ts>`: a Slack thread the bot takes part in (adapters/slack/threads.ts). */
export const SLACK_THREAD_PREFIX = "slack-thread:";
