/**
 * Converting long voice notes to the chatbot API's WAV: speed as seconds of audio per CPU second, wall time, the
 * longest the event loop waited, and peak memory against the size of the WAV produced. Also the measurements behind
 * the converter type (libsamplerate, 48 → 16 kHz) and decoding Opus straight at 16 kHz. Run with
 * `npx tsx bench/voice-conversion.ts`.
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import LibSampleRate from "@alexanderolsen/libsamplerate-js";
import { OggOpusDecoder } from "ogg-opus-decoder";
import { audioToWav, SPEECH_SAMPLE_RATE } from "../src/bridge/media/audio-to-wav.js";
import { repeatOggOpus } from "./support/ogg-opus-repeat.js";

const NOTE_SECONDS = 300;
const FIXTURE_SECONDS = 4.83;
const COPIES = Math.ceil(NOTE_SECONDS / FIXTURE_SECONDS);
const WARM_UPS = 1;
const RUNS = 5;
const FIXTURES = new URL("../test/fixtures/media/", import.meta.url);

const INPUTS = {
  "Ogg/Opus voice note (24 kb/s, 48 kHz)": {
    format: "opus",
    fixture: "voice.ogg",
    bytes: () => repeatOggOpus(fixture("voice.ogg"), COPIES),
  },
  "MP3 (48 kb/s, 22.05 kHz), fixture repeated": {
    format: "mp3",
    fixture: "speech.mp3",
    bytes: () => Buffer.concat(Array.from({ length: COPIES }, () => fixture("speech.mp3"))),
  },
} as const;
type InputName = keyof typeof INPUTS;

function fixture(name: string): Uint8Array {
  return readFileSync(new URL(name, FIXTURES));
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Median CPU and wall time of converting `bytes`, and the longest event-loop delay seen during any run. */
async function speed(name: InputName) {
  const input = INPUTS[name];
  const bytes = input.bytes();
  const cpu: number[] = [];
  const wall: number[] = [];
  let seconds = 0;
  let wavBytes = 0;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  for (let run = 0; run < WARM_UPS + RUNS; run++) {
    if (run === WARM_UPS) delay.enable();
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    const converted = await audioToWav(bytes, input.format, { maxSeconds: 3600 });
    if (run < WARM_UPS) continue;
    wall.push(performance.now() - wallStart);
    cpu.push(cpuMs(cpuStart));
    seconds = converted.seconds;
    wavBytes = converted.wav.length;
  }
  delay.disable();
  return {
    inputBytes: bytes.length,
    seconds,
    wavBytes,
    cpuMs: median(cpu),
    wallMs: median(wall),
    stallMs: delay.max / 1e6,
  };
}

/** Runs this script as a child that converts `name` and reports its memory. */
function runChild(name: InputName, collectGarbage: boolean): ChildReport {
  const flags = collectGarbage ? ["--expose-gc", ...process.execArgv] : process.execArgv;
  const args = [...flags, fileURLToPath(import.meta.url), "--child", name];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8" })) as ChildReport;
}

interface ChildReport {
  /** Peak RSS over the RSS just before converting, sampled between pieces and after the last. */
  rssGrowthBytes: number;
  /** Peak JS heap used over its level just before converting. */
  heapGrowthBytes: number;
  /** Peak of JS heap + array buffers over their level before, garbage collected before each sample (--expose-gc). */
  liveGrowthBytes: number;
}

/**
 * Memory of one conversion, each in a fresh process after it built the input and converted the short fixture:
 * peak RSS and heap growth (medians of three processes), and with garbage collected between pieces what the
 * conversion holds.
 */
function memory(name: InputName) {
  const reports = Array.from({ length: 3 }, () => runChild(name, false));
  return {
    rssBytes: median(reports.map((report) => report.rssGrowthBytes)),
    heapBytes: median(reports.map((report) => report.heapGrowthBytes)),
    liveBytes: runChild(name, true).liveGrowthBytes,
  };
}

/**
 * The child: how much memory converting `name` adds, once its input is built and its modules loaded. RSS is
 * sampled rather than read from maxRSS, the lifetime high-water mark that loading the modules may already have set.
 */
async function child(name: InputName) {
  const input = INPUTS[name];
  const bytes = input.bytes();
  // Compiling the decoders' wasm and optimising the code is paid once per process, not per note.
  await audioToWav(fixture(input.fixture), input.format, { maxSeconds: 60 });
  const collect = (globalThis as { gc?: () => void }).gc;
  const usage = () => {
    collect?.();
    const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
    return { rss, heap: heapUsed, live: heapUsed + arrayBuffers };
  };
  const before = usage();
  const peak = { ...before };
  const sample = () => {
    const now = usage();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heap = Math.max(peak.heap, now.heap);
    peak.live = Math.max(peak.live, now.live);
  };
  const sampler = setInterval(sample, 1);
  await audioToWav(bytes, input.format, { maxSeconds: 3600 });
  sample();
  clearInterval(sampler);
  const report: ChildReport = {
    rssGrowthBytes: peak.rss - before.rss,
    heapGrowthBytes: peak.heap - before.heap,
    liveGrowthBytes: peak.live - before.live,
  };
  process.stdout.write(JSON.stringify(report));
}

/** RMS gain in dB of a sine through a converter: what survives of `hz` at 48 kHz once resampled to 16 kHz. */
async function toneGainDb(converterType: 0 | 1 | 2 | 3 | 4, hz: number): Promise<number> {
  const input = Float32Array.from({ length: 48_000 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / 48_000));
  const converter = await LibSampleRate.create(1, 48_000, SPEECH_SAMPLE_RATE, { converterType });
  const output = converter.full(input).subarray(1000);
  converter.destroy();
  const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
  return 20 * Math.log10(rms(output) / rms(input) + 1e-9);
}

/** Seconds of audio resampled 48 → 16 kHz per CPU second, in the pieces a decoder hands over. */
async function resamplerSpeed(converterType: 0 | 1 | 2 | 3 | 4, pieces: Float32Array[], seconds: number) {
  const converter = await LibSampleRate.create(1, 48_000, SPEECH_SAMPLE_RATE, { converterType });
  const start = process.cpuUsage();
  for (const piece of pieces) converter.full(piece);
  const ms = cpuMs(start);
  converter.destroy();
  return seconds / (ms / 1000);
}

/** The 5-minute note decoded at `sampleRate`, in the decoder's pieces, with the CPU time decoding took. */
async function decodeOpus(note: Uint8Array, sampleRate: number) {
  const decoder = new OggOpusDecoder({ sampleRate } as ConstructorParameters<typeof OggOpusDecoder>[0]);
  await decoder.ready;
  const start = process.cpuUsage();
  const pieces: Float32Array[] = [];
  for (let at = 0; at < note.length; at += 32 * 1024) {
    const decoded = await decoder.decode(note.subarray(at, at + 32 * 1024));
    if (decoded.channelData[0]) pieces.push(decoded.channelData[0]);
  }
  const flushed = await decoder.flush();
  if (flushed.channelData[0]) pieces.push(flushed.channelData[0]);
  const ms = cpuMs(start);
  decoder.free();
  return { pieces, ms };
}

async function choices() {
  const note = INPUTS["Ogg/Opus voice note (24 kb/s, 48 kHz)"].bytes();
  await decodeOpus(note, 48_000); // warm-up
  const at48 = await decodeOpus(note, 48_000);
  const at16 = await decodeOpus(note, SPEECH_SAMPLE_RATE);
  const seconds = at48.pieces.reduce((sum, piece) => sum + piece.length, 0) / 48_000;
  // A minute is enough to rank the converters; SINC_BEST_QUALITY would take 12 s over the whole note.
  const minute = at48.pieces.slice(0, Math.ceil((60 / seconds) * at48.pieces.length));
  const minuteSeconds = minute.reduce((sum, piece) => sum + piece.length, 0) / 48_000;
  const types = LibSampleRate.ConverterType;
  const rows: Record<string, Record<string, string>> = {};
  let fastest = Number.NaN;
  for (const [name, type] of Object.entries(types)) {
    await resamplerSpeed(type, minute.slice(0, 1), minuteSeconds); // warm-up
    const perCpuSecond = await resamplerSpeed(type, minute, minuteSeconds);
    if (type === types.SRC_SINC_FASTEST) fastest = perCpuSecond;
    rows[name] = {
      "audio s / CPU s": perCpuSecond.toFixed(0),
      "3 kHz (dB)": (await toneGainDb(type, 3000)).toFixed(1),
      "7 kHz (dB)": (await toneGainDb(type, 7000)).toFixed(1),
      "12 kHz, folds to 4 kHz (dB)": (await toneGainDb(type, 12_000)).toFixed(1),
    };
  }
  console.log(`libsamplerate converters, 48 → 16 kHz on ${minuteSeconds.toFixed(0)} s of decoded speech; tone gains:`);
  console.table(rows);
  const decode48 = seconds / (at48.ms / 1000);
  const decode16 = seconds / (at16.ms / 1000);
  const via48 = 1 / (1 / decode48 + 1 / fastest);
  console.log(
    [
      `Opus decoded at 48 kHz: ${decode48.toFixed(0)} audio s / CPU s, with SINC_FASTEST to 16 kHz: ${via48.toFixed(0)};`,
      `decoded straight at 16 kHz: ${decode16.toFixed(0)} (${(decode16 / via48).toFixed(1)}× faster, no resampler).\n`,
    ].join("\n"),
  );
}

async function main() {
  console.log(
    [
      `Each input is ~${NOTE_SECONDS} s of speech (a ${FIXTURE_SECONDS} s fixture ${COPIES} times over), converted to`,
      `16-bit mono ${SPEECH_SAMPLE_RATE / 1000} kHz WAV; median of ${RUNS} runs after ${WARM_UPS} warm-up. Memory: what`,
      "one conversion adds in a fresh process that built its input and converted the short fixture (median of 3).",
      "Peak RSS includes decoded pieces V8 has not collected yet; 'live after GC' collects garbage between pieces",
      "and counts what the conversion holds in JS heap + array buffers (the decoders' wasm memories are outside).\n",
    ].join("\n"),
  );
  await choices();
  const rows: Record<string, Record<string, string>> = {};
  for (const name of Object.keys(INPUTS) as InputName[]) {
    const result = await speed(name);
    const peak = memory(name);
    rows[name] = {
      audio: `${result.seconds.toFixed(0)} s`,
      "audio s / CPU s": (result.seconds / (result.cpuMs / 1000)).toFixed(0),
      "wall ms": result.wallMs.toFixed(0),
      "longest stall ms": result.stallMs.toFixed(0),
      WAV: mb(result.wavBytes),
      "peak RSS +": mb(peak.rssBytes),
      "÷ WAV": (peak.rssBytes / result.wavBytes).toFixed(1),
      "peak heap +": mb(peak.heapBytes),
      "live after GC +": mb(peak.liveBytes),
    };
  }
  console.table(rows);
}

if (process.argv[2] === "--child") await child(process.argv[3] as InputName);
else await main();
