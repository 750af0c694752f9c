import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { upstreamFailed } from '../shared/provider-failure.js';

/** How eSpeak NG speaks one text: its arguments, already in eSpeak's units. */
export interface EspeakVoice {
  /** A voice name with an optional variant, e.g. `en-us` or `en-us+f3`. */
  voice: string;
  /** 0-99, 50 is the voice's own. */
  pitch: number;
  /** 0-99, 50 is the voice's own; higher is more expressive. */
  pitchRange: number;
  /** Words per minute, 80-450. */
  speed: number;
  /** 0-200, 100 is eSpeak's default. */
  amplitude: number;
}

/**
 * The worker's code. eSpeak NG's emscripten build runs its `main` once per instance and keeps
 * its files in the instance, so each text gets a fresh instance of the one compiled module;
 * the run is synchronous (0.3-1 s), which is why it happens off the main thread. The text is
 * written to a file and read with `-f`: it never becomes an argument, so it cannot be an option.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const loaded = (async () => {
  const { default: ESpeakNg } = await import(workerData.moduleUrl);
  const wasm = await WebAssembly.compile(readFileSync(workerData.wasmPath));
  return { ESpeakNg, wasm };
})();
async function speak(args, text) {
  const { ESpeakNg, wasm } = await loaded;
  const log = [];
  let status = 0;
  let failInstantiate;
  const failed = new Promise((_, reject) => { failInstantiate = reject; });
  const instance = await Promise.race([failed, ESpeakNg({
    arguments: args,
    print: (line) => log.push(line),
    printErr: (line) => log.push(line),
    quit: (code, err) => { status = code; throw err; },
    preRun: [(m) => m.FS.writeFile('/input.txt', text)],
    instantiateWasm: (imports, done) => { WebAssembly.instantiate(wasm, imports).then((i) => done(i), failInstantiate); return {}; },
  })]);
  if (status !== 0) throw new Error('eSpeak NG exited with status ' + status + ': ' + log.join(' ').slice(0, 300));
  return instance.FS.readFile('/speech.wav').slice();
}
parentPort.on('message', ({ id, args, text }) => {
  speak(args, text).then(
    (wav) => parentPort.postMessage({ id, wav }, [wav.buffer]),
    (err) => parentPort.postMessage({ id, error: String((err && err.message) || err) }),
  );
});
`;

interface Reply {
  id: number;
  wav?: Uint8Array;
  error?: string;
}

/** eSpeak's budget for one text: its fixed start-up plus a margin per character, generous on a busy machine. */
function budgetMs(text: string): number {
  return 20_000 + 20 * text.length;
}

/**
 * eSpeak NG (WebAssembly) in one worker thread, loaded once and reused; texts are spoken one at
 * a time, so the memory and CPU it takes stay bounded however many callers wait. A worker that
 * crashes, hangs past its budget or is abandoned mid-text is replaced on the next call.
 */
export class EspeakEngine {
  private worker: Worker | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  /** The WAV (22.05 kHz mono 16-bit) of the text spoken with the voice. */
  synthesize(text: string, voice: EspeakVoice, signal?: AbortSignal): Promise<Buffer> {
    const turn = this.tail.then(() => this.run(text, voice, signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the worker (tests, shutdown); a later call starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private run(text: string, voice: EspeakVoice, signal?: AbortSignal): Promise<Buffer> {
    if (signal?.aborted) return Promise.reject(upstreamFailed('local', 'aborted', 'The speech was cancelled.'));
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      const settle = (err: Error | null, wav?: Buffer) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(wav!);
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if (reply.wav) settle(null, Buffer.from(reply.wav.buffer, reply.wav.byteOffset, reply.wav.byteLength));
        else settle(upstreamFailed('local', 'synthesis_failed', `The offline speech synthesiser failed: ${reply.error ?? 'no reason given'}`));
      };
      const onExit = () => settle(upstreamFailed('local', 'synthesis_failed', 'The offline speech synthesiser stopped unexpectedly.'));
      const abandon = (err: Error) => {
        void this.discard(worker);
        settle(err);
      };
      const onAbort = () => abandon(upstreamFailed('local', 'aborted', 'The speech was cancelled.'));
      const timer = setTimeout(() => abandon(upstreamFailed('local', 'timeout', 'The offline speech synthesiser did not finish in time.')), budgetMs(text));
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, args: espeakArguments(voice), text });
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    const modulePath = require.resolve('espeak-ng');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { moduleUrl: pathToFileURL(modulePath).href, wasmPath: modulePath.replace(/\.js$/, '.wasm') },
    });
    // An idle synthesiser must not keep the process alive.
    worker.unref();
    worker.on('error', () => void this.discard(worker));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    this.worker = worker;
    return worker;
  }

  /** A synchronous run cannot be interrupted, only its thread ended. */
  private async discard(worker: Worker): Promise<void> {
    if (this.worker === worker) this.worker = null;
    await worker.terminate();
  }
}

/** `-D` makes eSpeak's small random variations repeatable; `-z` drops the pause after the last sentence. */
export function espeakArguments(voice: EspeakVoice): string[] {
  const clamp = (value: number, min: number, max: number) => String(Math.round(Math.min(max, Math.max(min, value))));
  return [
    '-D',
    '-z',
    '-w', '/speech.wav',
    '-v', voice.voice,
    '-p', clamp(voice.pitch, 0, 99),
    '-P', clamp(voice.pitchRange, 0, 99),
    '-s', clamp(voice.speed, 80, 450),
    '-a', clamp(voice.amplitude, 0, 200),
    '-f', '/input.txt',
  ];
}
