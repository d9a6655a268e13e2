/** `chatbridge --help`. */
export const MAIN_HELP = `chatbridge — connects Telegram, Slack, WhatsApp and a web chat to AI chatbots.

Usage: chatbridge <command> [options]

Commands:
  ask [question]   chat with the configured chatbot in the terminal (checks your credentials)
  start            run the bridge (what npm start runs; --role web|worker splits it in two)
  api              run the self-hosted chatbot API server alone
  keys create      create a workspace and print its keys as JSON ({"secretKey","sessionKey"})
  keys demo        print the embedded demo's keys and chatbot serial number as JSON
  handoff list     the conversations handed to a person (asks the running chatbridge)
  handoff resume   give a conversation back to the bot; the user is told
  links <listing>  links and QR codes that open a conversation about a listing, one per channel

Options:
  -h, --help       show help (also: chatbridge <command> --help)
  -v, --version    show the version

Configuration comes from environment variables (and a .env file in the working directory);
see .env.example or docs/configuration.md for the list.
Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration, 130 stopped with Ctrl-C.`;

/** `chatbridge ask --help`. */
export const ASK_HELP = `Usage: chatbridge ask [options] [question...]

Asks the configured chatbot and streams the answer to stdout as it arrives; token usage goes to stderr.
Without a question it reads one from piped stdin, or opens an interactive chat in a terminal
(Ctrl-C stops an answer; Ctrl-C or Ctrl-D at the prompt quits).

Options:
  --session <id>    reuse an existing chat session instead of creating one
  --serial <id>     the chatbot to ask (default: CHATBOT_SERIAL_NUMBER)
  --json            print one JSON object per answer instead of streaming text:
                    {"sessionId","questionId","answerId","answer","totalToken","noAnswer"}
  -h, --help        show this help

Uses CHATBOT_API_URL, CHATBOT_API_KEY and CHATBOT_SERIAL_NUMBER.`;

/** Help of the commands that arrive with later features. */
export const START_HELP = `Usage: chatbridge start [--role all|web|worker]

Runs the bridge on PORT: the web chat at /, the webhooks of the enabled channels (/webhooks/<channel>),
/healthz, /readyz, /metrics and, unless CHATBOT_API_URL is set, the embedded chatbot API under /chat.
The banner lists each channel as enabled or disabled (naming what is missing). SIGTERM or Ctrl-C stops
accepting, lets the answers under way finish (10 s at most; then they end with the text shown so far),
and exits 0.

Options:
  --role all      take the platforms' events and answer them (the default)
  --role web      take the platforms' events only: webhooks, the web chat, Telegram polling, Slack
                  Socket Mode, admin; record each one and acknowledge it; answer nothing
  --role worker   answer only: work through the recorded events and send the answers through every
                  enabled channel; serves just /healthz, /readyz, /metrics (and /chat when embedded)
  -h, --help      show this help

web and worker processes share their work through the store: STORE_URL=redis://… for processes on
several machines, or the SQLite file in DATA_DIR for processes on one machine (memory:// is refused).
Telegram polling and the background passes run in one process at a time, whatever the roles.`;

export const API_HELP = `Usage: chatbridge api

Runs the self-hosted chatbot API server alone on PORT (operations under /chat, health at /healthz), with its
data in DATA_DIR (SQLite) or DATABASE_URL (PostgreSQL). On the first start it creates a demo workspace with a
chatbot and about fifty listings, and prints their keys. SIGTERM or Ctrl-C stops it cleanly.`;

/** `chatbridge keys --help`. */
export const KEYS_HELP = `Usage: chatbridge keys create [--name <name>]
       chatbridge keys demo

create  makes a workspace in the embedded server's store and prints one JSON line:
        {"secretKey":"…","sessionKey":"…"}
demo    prints the demo workspace's keys and chatbot: {"secretKey","sessionKey","serialNumber"}`;

/** `chatbridge handoff --help`. */
export const HANDOFF_HELP = `Usage: chatbridge handoff list [--json] [--url URL]
       chatbridge handoff resume <conversation> [--json] [--url URL]

list    the conversations a person has (the bot is silent in them): who, where, since and until when
resume  gives a conversation back to the bot now; the user is told "You're talking to the assistant again."

Both ask the running chatbridge at http://127.0.0.1:PORT (or --url) through its admin endpoints, with
ADMIN_TOKEN as a bearer token; set the same ADMIN_TOKEN as the running process.`;

/** `chatbridge links --help`. */
export const LINKS_HELP = `Usage: chatbridge links <MLS number or listing URL> [--out DIR] [--bot ID]

Prints, for each enabled channel of the bot, a link that opens a conversation about the listing, as "<channel> <link>":
  telegram  https://t.me/<bot>?start=l-<MLS>          (the bot's username from getMe)
  whatsapp  https://wa.me/<number>?text=…l-<MLS>      (the number from the Graph API)
  web       PUBLIC_URL/?listing=l-<MLS>               (the web chat opens and starts it)
and writes each link's QR code as <MLS>-<channel>.png and .svg in DIR (default: the current folder).
The conversation opens with the listing's card and "Would you like to book a viewing?".
--bot ID: the links of a bot of BRIDGE_CONFIG (default: the bot "default" of the environment variables).
The listing is looked up in the bot's chatbot's RealEstateList (CHATBOT_API_URL, or the embedded API).`;
