import { mkdir } from "node:fs/promises";
import path from "node:path";
import { ChatbotClient } from "../client/index.js";
import { createLogger } from "../common/log.js";
import { type Config, loadConfig } from "../config/config.js";
import { ListingCards } from "../features/listings/listing-cards.js";
import { listingCode } from "../features/listings/listing-links.js";
import type { ListingReference } from "../features/listings/listing-references.js";
import { reachChatbotApi } from "./chatbot-api.js";
import { parseCommandArgs } from "./command-args.js";
import { type CommandIo, EXIT, UsageError } from "./io.js";
import { writeQrFiles } from "./qr-files.js";
import { LINKS_HELP } from "./usage.js";

/**
 * `chatbridge links <MLS or URL> [--bot <id>]`: for each enabled channel of the bot (`default`, or one of
 * BRIDGE_CONFIG), a link that opens a conversation about that listing (each channel plugin builds its own), printed
 * one per line as `<channel> <link>`, and its QR code written as PNG and SVG for yard signs and flyers. The listing is
 * looked up like an answer's card, in that bot's chatbot, so a link is never made for a listing it does not have.
 */
export async function links(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: "links",
    usage: LINKS_HELP,
    positionals: true,
    options: { out: { type: "string" }, bot: { type: "string" } },
  });
  if (values.help) {
    io.stdout.write(`${LINKS_HELP}\n`);
    return EXIT.ok;
  }
  const [written, extra] = positionals;
  if (!written?.trim()) throw new UsageError(`missing MLS number or listing URL for "chatbridge links"`, LINKS_HELP);
  if (extra !== undefined)
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)} for "chatbridge links"`, LINKS_HELP);
  const config = loadConfig(io.env, { envFile: io.envFile });
  const botId = values.bot?.trim() || "default";
  const known = ["default", ...config.bots.map((bot) => bot.id)];
  if (!known.includes(botId)) {
    const where = config.bots.length > 0 ? "BRIDGE_CONFIG" : "BRIDGE_CONFIG (none is set)";
    throw new UsageError(
      `unknown bot ${JSON.stringify(botId)} for "chatbridge links --bot": the bots are ${known.join(", ")} — add it to ${where} or pick one of them`,
      LINKS_HELP,
    );
  }
  const mlsNumber = await findListing(botChatbot(config, botId), reference(written.trim()));
  if (!mlsNumber) {
    io.stderr.write(`chatbridge: no listing of the chatbot answers to ${JSON.stringify(written)}\n`);
    return EXIT.failure;
  }
  const code = listingCode(mlsNumber);
  if (!code) {
    io.stderr.write(`chatbridge: MLS number ${JSON.stringify(mlsNumber)} is too long for a link's 64 characters\n`);
    return EXIT.failure;
  }
  const start = { code, text: `Hi! I'm interested in listing ${code}` };
  const deployment = { publicUrl: config.bridge.publicUrl, localUrl: `http://127.0.0.1:${config.port}` };
  const dir = path.resolve(values.out ?? ".");
  await mkdir(dir, { recursive: true });
  let failed = false;
  let made = 0;
  for (const { plugin, bots } of config.channels) {
    const bot = bots.find((each) => each.botId === botId);
    if (!bot || !plugin.conversationLink) continue;
    try {
      const link = await plugin.conversationLink(bot.settings, start, deployment);
      if (!link) continue;
      const files = await writeQrFiles(link, dir, `${fileSafe(mlsNumber)}-${plugin.name}`);
      io.stdout.write(`${plugin.name} ${link}\n`);
      io.stderr.write(`  QR code: ${files.png}, ${files.svg}\n`);
      made++;
    } catch (error) {
      io.stderr.write(`chatbridge: no ${plugin.name} link: ${(error as Error).message}\n`);
      failed = true;
    }
  }
  if (made === 0 && !failed)
    io.stderr.write(`chatbridge: no enabled channel of bot ${JSON.stringify(botId)} has conversation links\n`);
  return failed || made === 0 ? EXIT.failure : EXIT.ok;
}

/**
 * The configuration as bot `botId`'s chatbot sees it: a bot of BRIDGE_CONFIG has its own chatbot fields, each
 * falling back to the CHATBOT_* variable of the same meaning (as `chatbridge start` resolves it).
 */
function botChatbot(config: Config, botId: string): { config: Config; serialNumber: string | undefined } {
  const own = config.bots.find((bot) => bot.id === botId)?.chatbot;
  if (!own) return { config, serialNumber: undefined };
  const api = config.chatbotApi;
  const chatbotApi = {
    ...api,
    url: own.apiUrl ?? api.url,
    apiKey: own.apiKey ?? api.apiKey,
    sessionKey: own.sessionKey ?? api.sessionKey,
    serialNumber: own.serialNumber ?? api.serialNumber,
  };
  return { config: { ...config, chatbotApi }, serialNumber: own.serialNumber };
}

/** An address is a listing's page; anything else its MLS number. */
function reference(written: string): ListingReference {
  return /^https?:\/\//i.test(written) && URL.canParse(written)
    ? { kind: "url", url: written }
    : { kind: "mls", mlsNumber: written.replace(/^MLS[\s#:-]*/i, "") };
}

/** The MLS number of the listing `wanted` names in the chatbot's RealEstateList, looked up like an answer's card. */
async function findListing(
  chatbot: { config: Config; serialNumber: string | undefined },
  wanted: ListingReference,
): Promise<string | undefined> {
  const { config } = chatbot;
  const api = await reachChatbotApi(config, chatbot.serialNumber);
  try {
    const client = new ChatbotClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      sessionKey: api.sessionKey,
      timeoutMs: config.chatbotApi.timeoutMs,
      uploadConfirmPath: config.chatbotApi.uploadConfirmPath,
    });
    // A failing RealEstateList is logged as a warning on stderr, then the listing counts as not found.
    const cards = new ListingCards(client, api.serialNumber, createLogger("warn"));
    return (await cards.cardsFor([wanted], 1))[0]?.mlsNumber;
  } finally {
    await api.close();
  }
}

/** The MLS number as a file name: anything but letters, digits, "_" and "-" becomes "_". */
function fileSafe(mlsNumber: string): string {
  return mlsNumber.replace(/[^A-Za-z0-9_-]/g, "_");
}
