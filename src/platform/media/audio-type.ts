/**
 * Audio formats accepted as voice samples and produced as speech, recognised by their leading
 * bytes only (never by a file name or a claimed content type). Each `ext` is one the storage
 * keys know (storage-keys MEDIA_TYPES).
 */
export interface AudioType {
  mime: 'audio/mpeg' | 'audio/wav' | 'audio/ogg' | 'audio/flac' | 'audio/mp4' | 'audio/webm';
  ext: 'mp3' | 'wav' | 'ogg' | 'flac' | 'm4a' | 'webm';
}

/** MP4 brands whose files carry (or may carry only) an audio track: iTunes audio and the generic ISO ones. */
const MP4_AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'mp41', 'mp42', 'isom', 'iso2', 'iso5', 'dash']);

function ascii(buf: Uint8Array, from: number, to: number): string {
  return buf.length >= to ? Buffer.from(buf.buffer, buf.byteOffset + from, to - from).toString('latin1') : '';
}

export function sniffAudioType(buf: Uint8Array): AudioType | null {
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WAVE') return { mime: 'audio/wav', ext: 'wav' };
  if (ascii(buf, 0, 4) === 'OggS') return { mime: 'audio/ogg', ext: 'ogg' };
  if (ascii(buf, 0, 4) === 'fLaC') return { mime: 'audio/flac', ext: 'flac' };
  if (ascii(buf, 4, 8) === 'ftyp' && MP4_AUDIO_BRANDS.has(ascii(buf, 8, 12))) return { mime: 'audio/mp4', ext: 'm4a' };
  if (buf.length >= 4 && buf[0] === 0x1a && buf[1] === 0x45 && buf[2] === 0xdf && buf[3] === 0xa3) return { mime: 'audio/webm', ext: 'webm' };
  if (isMp3(buf)) return { mime: 'audio/mpeg', ext: 'mp3' };
  return null;
}

/**
 * An ID3v2 tag then, when the buffer reaches past it, a frame; or a frame followed by a second
 * one where the first says it ends. One lone sync word is too weak: random bytes often have one.
 */
function isMp3(buf: Uint8Array): boolean {
  if (ascii(buf, 0, 3) === 'ID3') {
    const start = id3Length(buf);
    return start + 4 > buf.length || mpegFrame(buf, start) !== null;
  }
  const first = mpegFrame(buf, 0);
  if (!first) return false;
  return first.length + 4 > buf.length || mpegFrame(buf, first.length) !== null;
}

/** Bytes taken by a leading ID3v2 tag (its size is "syncsafe": 7 bits a byte), footer included. */
function id3Length(buf: Uint8Array): number {
  if (buf.length < 10 || ascii(buf, 0, 3) !== 'ID3') return 0;
  const size = ((buf[6] & 0x7f) << 21) | ((buf[7] & 0x7f) << 14) | ((buf[8] & 0x7f) << 7) | (buf[9] & 0x7f);
  const footer = buf[5] & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

export interface MpegFrame {
  /** Bytes from this header to the next one. */
  length: number;
  samples: number;
  sampleRate: number;
}

// Kilobits per second by bitrate index 1-14, for [MPEG-1 L1, L2, L3, MPEG-2/2.5 L1, L2 and L3].
const BITRATES = [
  [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The MPEG audio frame header at `at` (layers I-III; AAC's ADTS, layer 0, is not one), or null. */
export function mpegFrame(buf: Uint8Array, at: number): MpegFrame | null {
  if (at + 4 > buf.length || buf[at] !== 0xff || (buf[at + 1] & 0xe0) !== 0xe0) return null;
  const version = (buf[at + 1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layer = 4 - ((buf[at + 1] >> 1) & 3); // 1, 2 or 3; 4 is reserved
  const bitrateIndex = buf[at + 2] >> 4;
  const rateIndex = (buf[at + 2] >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const mpeg1 = version === 3;
  const kbps = BITRATES[mpeg1 ? layer - 1 : layer === 1 ? 3 : 4][bitrateIndex - 1];
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (buf[at + 2] >> 1) & 1;
  if (layer === 1) return { length: (Math.floor((12 * kbps * 1000) / sampleRate) + padding) * 4, samples: 384, sampleRate };
  const samples = layer === 3 && !mpeg1 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * kbps * 1000) / sampleRate) + padding, samples, sampleRate };
}

/**
 * The playing time of an MP3, in seconds, by walking its frames from the first one (after any
 * ID3v2 tag) until the frames stop; null when it has none. A Xing/Info frame is a header, not audio.
 */
export function mp3DurationSeconds(buf: Uint8Array): number | null {
  let at = id3Length(buf);
  let seconds = 0;
  let frames = 0;
  for (let frame = mpegFrame(buf, at); frame && at + frame.length <= buf.length; frame = mpegFrame(buf, at)) {
    if (!(frames === 0 && isXingFrame(buf, at))) seconds += frame.samples / frame.sampleRate;
    frames++;
    at += frame.length;
  }
  return frames > 0 ? seconds : null;
}

/** Encoders put their Xing/Info (or Fraunhofer VBRI) tag right after the first frame's side information. */
function isXingFrame(buf: Uint8Array, at: number): boolean {
  const mpeg1 = ((buf[at + 1] >> 3) & 3) === 3;
  const mono = buf[at + 3] >> 6 === 3;
  const tagAt = at + 4 + (mpeg1 ? (mono ? 17 : 32) : mono ? 9 : 17);
  const tag = ascii(buf, tagAt, tagAt + 4);
  return tag === 'Xing' || tag === 'Info' || ascii(buf, at + 36, at + 40) === 'VBRI';
}

export interface WavInfo {
  /** 1 integer PCM, 3 float... (an extensible header's sub-format, read through). */
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes of one sample of every channel. */
  blockAlign: number;
  dataOffset: number;
  /** Bytes of audio actually present (a streamed WAV declares a size it does not have). */
  dataLength: number;
}

/** The fmt and data chunks of a RIFF/WAVE file; null when it is not one or lacks either. */
export function readWav(buf: Uint8Array): WavInfo | null {
  if (ascii(buf, 0, 4) !== 'RIFF' || ascii(buf, 8, 12) !== 'WAVE') return null;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataLength'> | null = null;
  for (let at = 12; at + 8 <= buf.length; ) {
    const id = ascii(buf, at, at + 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 24 <= buf.length) {
      const declared = view.getUint16(at + 8, true);
      const extensible = declared === 0xfffe && size >= 40 && at + 34 <= buf.length;
      fmt = {
        format: extensible ? view.getUint16(at + 32, true) : declared,
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        blockAlign: view.getUint16(at + 20, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
    } else if (id === 'data') {
      if (!fmt || fmt.channels === 0 || fmt.sampleRate === 0 || fmt.blockAlign === 0) return null;
      const available = buf.length - (at + 8);
      const dataLength = Math.min(size, available);
      return { ...fmt, dataOffset: at + 8, dataLength: dataLength - (dataLength % fmt.blockAlign) };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** A WAV's playing time from its fmt and data chunks, in seconds; null when it is not a readable WAV. */
export function wavDurationSeconds(buf: Uint8Array): number | null {
  const wav = readWav(buf);
  return wav ? wav.dataLength / wav.blockAlign / wav.sampleRate : null;
}

/** A 16-bit little-endian PCM WAV around raw samples (interleaved when several channels). */
export function pcm16Wav(pcm: Uint8Array, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
