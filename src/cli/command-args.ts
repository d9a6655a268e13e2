import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./io.js";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** `-h` / `--help`, which every command takes. */
const HELP = { help: { type: "boolean", short: "h", default: false } } as const;

/** What a command accepts, and how to tell the user when the arguments do not fit. */
export interface CommandArgs<O extends OptionsConfig> {
  /** The command as typed after `chatbridge`, e.g. "start". */
  command: string;
  /** The command's help, printed after the message when the arguments are wrong. */
  usage: string;
  /** Its options besides `--help`. */
  options?: O;
  /** Whether it takes arguments besides options (an action, a question). */
  positionals?: boolean;
}

/**
 * Parses a command's arguments with node:util's parseArgs. Arguments that do not fit — an unknown option, an option
 * without its value, a value given to a flag, an argument the command does not take — are reported first in
 * chatbridge's words as a {@link UsageError} carrying the command's usage, so `chatbridge start --bogus` says
 * `unknown option --bogus for "chatbridge start"`, prints what start accepts and exits 2, instead of Node's message.
 */
export function parseCommandArgs<const O extends OptionsConfig = Record<never, never>>(
  args: string[],
  spec: CommandArgs<O>,
) {
  const options = { ...spec.options, ...HELP } as O & typeof HELP;
  const allowPositionals = spec.positionals ?? false;
  const refuse = (problem: string, hint = "") =>
    new UsageError(`${problem} for "chatbridge ${spec.command}"${hint}`, spec.usage);
  // Lenient pass for the tokens: the strict one below would throw Node's own message at the first problem.
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === "positional" && !allowPositionals)
      throw refuse(`unexpected argument ${JSON.stringify(token.value)}`);
    if (token.kind !== "option") continue;
    // Own keys only: "--constructor" is no option of ours.
    const option = Object.hasOwn(options, token.name) ? (options as OptionsConfig)[token.name] : undefined;
    // A question may start with "-" ("-5% homes?"): after "--" it is not read as options, so say so.
    if (!option)
      throw refuse(
        `unknown option ${token.rawName}`,
        allowPositionals ? ` (put text that starts with "-" after --)` : "",
      );
    if (option.type === "boolean" && token.value !== undefined) throw refuse(`option ${token.rawName} takes no value`);
    // Like parseArgs' strict mode, "--serial --json" is a forgotten value rather than the serial "--json".
    const dashed =
      token.value !== undefined && !token.inlineValue && token.value.length > 1 && token.value.startsWith("-");
    if (option.type === "string" && (token.value === undefined || dashed))
      throw refuse(`option ${token.rawName} needs a value`);
  }
  return parseArgs({ args, options, allowPositionals, strict: true });
}
