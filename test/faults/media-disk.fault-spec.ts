import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, grantCredits, loginAdmin, registerUser, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { pngBytes } from '../fakes/queue-e2e-jobs.js';

/**
 * Issue 25 item 7: a full or a read-only media disk. We run as root, which ignores file modes, so
 * a chmod would prove nothing: the media directory (STORAGE_DIR) is a private 1 MiB tmpfs that the
 * test first fills (every write then fails with ENOSPC, after creating its file) and then remounts
 * read-only (EROFS). The kernel refuses those writes whoever asks. Image and video jobs must fail
 * with `storage_unavailable`, be refunded in the ledger, and leave no file in the media directory
 * nor in the process's temp directory.
 */

type Body = Record<string, any>;

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'pipe' });
}

/** Every file under `dir` (relative paths). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('a full, then read-only, media disk', () => {
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;
  let character: string;
  let mediaDir: string;
  let processTmp: string;
  let mounted = false;

  const balance = async (): Promise<number> => (await api(server).get('/billing/credits').set(user.auth)).body.balance as number;
  const ledgerOf = async (ref: string): Promise<Array<[string, number]>> =>
    ((await api(server).get('/billing/ledger?page_size=100').set(user.auth)).body.entries as Body[])
      .filter((e) => e.ref_id === ref).map((e): [string, number] => [e.reason as string, e.amount as number]).sort();
  const settledJob = (id: string): Promise<Body> =>
    waitFor(async () => {
      const job = (await api(server).get(`/jobs/${id}`).set(user.auth)).body.job as Body;
      return ['failed', 'completed'].includes(job?.status) ? job : undefined;
    }, 60_000, `job ${id} to end`);
  /** Media files, ignoring the filler that makes the disk full. */
  const mediaFiles = () => filesUnder(mediaDir).filter((f) => f !== 'filler');

  /** An image and a video ordered; both jobs must fail with storage_unavailable and be refunded in full. */
  async function orderBothAndExpectCleanFailure(phase: string): Promise<Body> {
    const before = await balance();
    const image = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: `Disk ${phase}`, type: 'single' });
    expect(image.status).toBe(201);
    const video = await api(server).post('/content/video/generate').set(user.auth).send({ character_id: character, platform: 'tiktok', scene_description: `Disk ${phase}`, duration_seconds: 5 });
    expect(video.status).toBe(202);

    const started = Date.now();
    const [imageJob, videoJob] = await Promise.all([settledJob(image.body.job.id), settledJob(video.body.job.id)]);
    const failedInMs = Date.now() - started;
    for (const job of [imageJob, videoJob]) {
      expect(job).toMatchObject({ status: 'failed', error: { code: 'storage_unavailable', message: expect.any(String) } });
      expect(JSON.stringify(job.error)).not.toContain(mediaDir);
    }
    expect(await balance()).toBe(before);
    const imageLedger = await ledgerOf(image.body.item.id);
    const videoLedger = await ledgerOf(video.body.item.id);
    for (const entries of [imageLedger, videoLedger]) {
      expect(entries).toHaveLength(2);
      expect(entries[0][1] + entries[1][1]).toBe(0);
      expect(entries.some(([reason]) => reason === 'content_refund')).toBe(true);
    }
    // Nothing left: no partial or temporary file in the media directory, no work directory in tmp.
    expect(mediaFiles()).toEqual([]);
    expect(readdirSync(processTmp)).toEqual([]);
    return { phase, failed_in_ms: failedInMs, image_ledger: imageLedger, video_ledger: videoLedger };
  }

  beforeAll(async () => {
    mediaDir = mkdtempSync(join(tmpdir(), 'fault-media-'));
    processTmp = mkdtempSync(join(tmpdir(), 'fault-tmp-'));
    try {
      run('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', mediaDir]);
      mounted = true;
    } catch (err) {
      throw new Error(`this fault test mounts a private tmpfs as the media directory (it needs root, or CAP_SYS_ADMIN): ${String(err)}`, { cause: err });
    }
    backing = await createBacking({ services: true });
    // One process runs the API and the jobs: the disk is the fault here, not the process split.
    server = await startServer(backing, {
      RUN_JOBS_IN_API: 'true', STORAGE_DIR: mediaDir, TMPDIR: processTmp, MEDIA_PROVIDER: 'local',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50',
    });
    const admin = await loginAdmin(server);
    user = await registerUser(server);
    await grantCredits(server, admin, user.workspace.id, 1000);
    character = (await api(server).post('/characters').set(user.auth).send({ name: 'Disk', niche: 'travel' })).body.character.id as string;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
    if (mounted) execFileSync('umount', ['-l', mediaDir]);
    rmSync(mediaDir, { recursive: true, force: true });
    rmSync(processTmp, { recursive: true, force: true });
  });

  it('fails image and video jobs with storage_unavailable, refunds them and leaves no file, on a full disk and then a read-only one; works again after', async () => {
    const figures: Body[] = [];

    // A healthy disk first: the same orders complete (the setup is sound).
    const ok = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'Healthy', type: 'single' });
    expect((await settledJob(ok.body.job.id)).status).toBe('completed');
    const healthyFiles = mediaFiles();
    expect(healthyFiles.length).toBeGreaterThan(0);
    const smallest = Math.min(...healthyFiles.map((f) => statSync(join(mediaDir, f)).size));
    rmSync(join(mediaDir, 'content'), { recursive: true, force: true });

    // Nearly full: a filler leaves room for the folders (a page each) and one page more, so a
    // write starts, creates its file and fails part way (ENOSPC): the partial file case.
    const { bavail, bsize } = statfsSync(mediaDir);
    const leave = 5 * bsize;
    expect(smallest).toBeGreaterThan(2 * bsize);
    run('dd', ['if=/dev/zero', `of=${join(mediaDir, 'filler')}`, `bs=${bsize}`, `count=${Math.floor((bavail * bsize - leave) / bsize)}`]);
    figures.push({ ...(await orderBothAndExpectCleanFailure('full (ENOSPC)')), smallest_media_bytes: smallest, free_bytes_left: leave });

    // Read-only: space again, but the kernel refuses every write.
    rmSync(join(mediaDir, 'filler'));
    rmSync(join(mediaDir, 'content'), { recursive: true, force: true });
    run('mount', ['-o', 'remount,ro', mediaDir]);
    figures.push(await orderBothAndExpectCleanFailure('read-only (EROFS)'));

    // A synchronous upload on the read-only disk: 503 storage_unavailable, nothing kept.
    const upload = await api(server).post(`/characters/${character}/reference-images`).set(user.auth)
      .attach('file', pngBytes(3, 64, 64), { filename: 'face.png', contentType: 'image/png' });
    expect(upload.status).toBe(503);
    expect(upload.body).toMatchObject({ code: 'storage_unavailable' });
    expect((await api(server).get(`/characters/${character}`).set(user.auth)).body.character.reference_images).toEqual([]);
    expect(mediaFiles()).toEqual([]);

    // The disk back: the next order completes.
    run('mount', ['-o', 'remount,rw', mediaDir]);
    const again = await api(server).post('/content/generate').set(user.auth).send({ character_id: character, platform: 'instagram', prompt: 'Back', type: 'single' });
    expect((await settledJob(again.body.job.id)).status).toBe('completed');
    process.stdout.write(`media-disk fault figures: ${JSON.stringify(figures)}\n`);
  }, 170_000);
});
