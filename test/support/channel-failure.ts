import { ChannelError } from "../../src/bridge/channel.js";

/** The {@link ChannelError} a channel call fails with; throws when it succeeds or fails otherwise. */
export async function channelFailure(call: Promise<unknown>): Promise<ChannelError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ChannelError)) throw new Error(`expected a ChannelError, got ${String(error)}`);
  return error;
}
