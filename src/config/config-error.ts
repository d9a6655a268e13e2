/** Stops the program: one line per bad setting, naming it, its value (secrets masked) and the fix. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}
