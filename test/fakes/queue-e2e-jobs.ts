import { PNG } from 'pngjs';

/** What starting a job through the product API needs: the server's /api/v1 URL and a user's session. */
export interface JobStarter {
  url: string;
}
export interface SessionUser {
  auth: { Authorization: string };
}
/** A job as the API answers it. */
export interface WireJob {
  id: string;
  job_type: string;
  status: string;
  progress: number;
  [field: string]: unknown;
}

/** A small, valid PNG with a colour gradient, different per seed. */
export function pngBytes(seed = 0, width = 32, height = 32): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      png.data[i] = (x * 8 + seed) % 256;
      png.data[i + 1] = (y * 8 + seed * 3) % 256;
      png.data[i + 2] = (x * y + seed * 7) % 256;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

async function call(server: JobStarter, user: SessionUser, path: string, body: string | FormData, json: boolean): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { ...user.auth, ...(json ? { 'Content-Type': 'application/json' } : {}) };
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`POST ${path} failed: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

export async function createCharacter(server: JobStarter, user: SessionUser, name = 'Job Runner'): Promise<string> {
  const answer = await call(server, user, '/characters', JSON.stringify({ name, niche: 'fitness' }), true);
  return (answer.character as { id: string }).id;
}

/**
 * Uploads a reference image: the product route that starts a job without spending credits
 * (`recompute_face_embedding`). Answers the job as the upload returned it.
 */
export async function startFaceEmbeddingJob(server: JobStarter, user: SessionUser, characterId: string, seed = 1): Promise<WireJob> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pngBytes(seed))], { type: 'image/png' }), 'face.png');
  const answer = await call(server, user, `/characters/${characterId}/reference-images`, form, false);
  return answer.job as WireJob;
}
