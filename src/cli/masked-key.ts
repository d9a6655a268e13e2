/** Shows the start and end of a key, enough to recognise it. */
export const masked = (key: string) => `${key.slice(0, 6)}…${key.slice(-4)}`;
