import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mp3DurationSeconds, pcm16Wav, readWav, sniffAudioType, wavDurationSeconds } from './audio-type.js';

/** 1.5 s of a 220 Hz tone in the given container and codec, made by the bundled ffmpeg. */
function tone(args: string[], seconds = 1.5): Buffer {
  const run = spawnSync(ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}`, ...args, 'pipe:1'], { maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`ffmpeg failed: ${run.stderr.toString()}`);
  return run.stdout;
}

const files: Record<string, Buffer> = {};

beforeAll(() => {
  files.wav = tone(['-ac', '2', '-ar', '44100', '-f', 'wav']);
  files.floatWav = tone(['-ar', '16000', '-c:a', 'pcm_f32le', '-f', 'wav']);
  files.mp3 = tone(['-ar', '44100', '-b:a', '128k', '-f', 'mp3']);
  files.mp3Mpeg2 = tone(['-ar', '22050', '-b:a', '64k', '-write_xing', '0', '-id3v2_version', '0', '-f', 'mp3']);
  files.ogg = tone(['-c:a', 'libvorbis', '-f', 'ogg']);
  files.opus = tone(['-c:a', 'libopus', '-f', 'ogg']);
  files.flac = tone(['-c:a', 'flac', '-f', 'flac']);
  files.m4a = tone(['-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov', '-f', 'ipod']);
  files.webm = tone(['-c:a', 'libopus', '-f', 'webm']);
});

describe('sniffAudioType', () => {
  it('recognises each accepted format by its bytes', () => {
    expect(sniffAudioType(files.wav)).toEqual({ mime: 'audio/wav', ext: 'wav' });
    expect(sniffAudioType(files.floatWav)).toEqual({ mime: 'audio/wav', ext: 'wav' });
    expect(sniffAudioType(files.mp3)).toEqual({ mime: 'audio/mpeg', ext: 'mp3' });
    expect(sniffAudioType(files.mp3Mpeg2)).toEqual({ mime: 'audio/mpeg', ext: 'mp3' });
    expect(sniffAudioType(files.ogg)).toEqual({ mime: 'audio/ogg', ext: 'ogg' });
    expect(sniffAudioType(files.opus)).toEqual({ mime: 'audio/ogg', ext: 'ogg' });
    expect(sniffAudioType(files.flac)).toEqual({ mime: 'audio/flac', ext: 'flac' });
    expect(sniffAudioType(files.m4a)).toEqual({ mime: 'audio/mp4', ext: 'm4a' });
    expect(sniffAudioType(files.webm)).toEqual({ mime: 'audio/webm', ext: 'webm' });
  });

  it('needs an MP3 without a tag to show two frames in a row, where its buffer holds both', () => {
    expect(files.mp3Mpeg2[0]).toBe(0xff);
    expect(sniffAudioType(files.mp3Mpeg2.subarray(0, 600))?.ext).toBe('mp3');
    const lone = Buffer.concat([files.mp3Mpeg2.subarray(0, 4), Buffer.alloc(600, 0x41)]);
    expect(sniffAudioType(lone)).toBeNull();
  });

  it('refuses what is not audio, whatever it resembles', () => {
    expect(sniffAudioType(Buffer.from('hello, I am an mp3 file'))).toBeNull();
    expect(sniffAudioType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))).toBeNull();
    expect(sniffAudioType(Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')]))).toBeNull();
    // AAC in ADTS frames shares MPEG's sync word but has layer 0.
    expect(sniffAudioType(Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc, 0, 0, 0, 0, 0]))).toBeNull();
    // An MP4 video brand that is not an audio one.
    expect(sniffAudioType(Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from('ftypqt  '), Buffer.alloc(8)]))).toBeNull();
    expect(sniffAudioType(Buffer.alloc(0))).toBeNull();
    expect(sniffAudioType(Buffer.from([0xff]))).toBeNull();
  });
});

describe('mp3DurationSeconds', () => {
  it('adds up the frames, not counting the Xing header frame, within one frame of the truth', () => {
    // LAME adds under two frames of encoder delay and padding.
    expect(mp3DurationSeconds(files.mp3)).toBeGreaterThanOrEqual(1.5);
    expect(mp3DurationSeconds(files.mp3)).toBeLessThan(1.5 + (2 * 1152) / 44100);
    expect(mp3DurationSeconds(files.mp3Mpeg2)).toBeGreaterThanOrEqual(1.5);
    expect(mp3DurationSeconds(files.mp3Mpeg2)).toBeLessThan(1.5 + (3 * 576) / 22050);
  });

  it('has no answer for what has no MPEG frames', () => {
    expect(mp3DurationSeconds(files.wav)).toBeNull();
    expect(mp3DurationSeconds(Buffer.from('ID3'))).toBeNull();
  });
});

describe('readWav and wavDurationSeconds', () => {
  it('reads the format and the length from the fmt and data chunks, past any other chunk', () => {
    expect(files.wav.includes(Buffer.from('LIST'))).toBe(true);
    expect(readWav(files.wav)).toMatchObject({ format: 1, channels: 2, sampleRate: 44100, bitsPerSample: 16, blockAlign: 4 });
    expect(wavDurationSeconds(files.wav)).toBeCloseTo(1.5, 3);
    expect(readWav(files.floatWav)).toMatchObject({ format: 3, channels: 1, sampleRate: 16000, bitsPerSample: 32 });
    expect(wavDurationSeconds(files.floatWav)).toBeCloseTo(1.5, 3);
  });

  it('counts only the audio present when the header promises more (a streamed or cut file)', () => {
    const cut = files.wav.subarray(0, files.wav.length - 44100 * 4 * 0.5);
    expect(wavDurationSeconds(cut)).toBeCloseTo(1.0, 2);
    const streamed = Buffer.from(files.floatWav);
    streamed.writeUInt32LE(0xffffffff, streamed.indexOf('data') + 4);
    expect(wavDurationSeconds(streamed)).toBeCloseTo(1.5, 3);
  });

  it('wraps raw PCM into a WAV that reads back the same', () => {
    const pcm = Buffer.alloc(22050 * 2);
    pcm.writeInt16LE(1234, 100);
    const wav = pcm16Wav(pcm, 22050);
    expect(sniffAudioType(wav)?.ext).toBe('wav');
    const info = readWav(wav)!;
    expect(info).toEqual({ format: 1, channels: 1, sampleRate: 22050, bitsPerSample: 16, blockAlign: 2, dataOffset: 44, dataLength: pcm.length });
    expect(wav.subarray(info.dataOffset).equals(pcm)).toBe(true);
    expect(wavDurationSeconds(wav)).toBe(1);
  });

  it('has no answer for what is not a readable WAV', () => {
    expect(wavDurationSeconds(files.mp3)).toBeNull();
    expect(wavDurationSeconds(Buffer.from('RIFF\x04\x00\x00\x00WAVE'))).toBeNull();
    const noFormat = Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00WAVEdata'), Buffer.from([4, 0, 0, 0, 1, 2, 3, 4])]);
    expect(readWav(noFormat)).toBeNull();
  });
});
