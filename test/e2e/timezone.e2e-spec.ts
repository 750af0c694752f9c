import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, connectSandbox, grantCredits, loginAdmin, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { E2E_MODE } from '../helpers/env.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';

/**
 * One posting timezone per character (contract §5, §6, §8): the calendar, week plans and
 * `POST /schedule/generate` all answer the zone the characters context decides — the character's
 * own timezone, else the zone its identity's location names, else the default.
 */

type Item = Record<string, any>;

/** Far enough ahead that the dispatcher never touches these posts; 2031-03-03 in every zone below. */
const START = '2031-03-03T12:00:00Z';
const FROM = '2031-03-03';
const TO = '2031-03-09';
/** The good posting hours (local) of a platform without stagger (Instagram). */
const INSTAGRAM_SLOTS = ['09:00', '13:00', '17:00', '21:00'];

/** Characters without a timezone of their own, and the zone their location names. */
const LOCATED = [
  { name: 'Lena', location: 'Berlin, Germany', zone: 'Europe/Berlin' },
  { name: 'Yui', location: 'Tokyo', zone: 'Asia/Tokyo' },
  { name: 'Bia', location: 'São Paulo, Brazil', zone: 'America/Sao_Paulo' },
  { name: 'Cody', location: 'Denver, Colorado', zone: 'America/Denver' },
] as const;

/** Local date and HH:MM of an instant in a zone. */
function local(iso: string, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(iso)).map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

describe('posting timezone', () => {
  let backing: Backing;
  let server: TestServer;
  let worker: RunningProcess | undefined;
  let alice: TestUser;

  const createCharacter = async (body: Record<string, unknown>): Promise<Item> => {
    const res = await api(server).post('/characters').set(alice.auth).send({ niche: 'travel', ...body });
    expect(res.status).toBe(201);
    return res.body.character as Item;
  };
  const calendar = async (characterId: string, path = '/content/calendar'): Promise<Item> => {
    const res = await api(server).get(path).query({ character_id: characterId, from: FROM, to: TO }).set(alice.auth);
    expect(res.status).toBe(200);
    return res.body as Item;
  };
  const mirrorCalendar = async (characterId: string): Promise<Item> => {
    const res = await api(server).get(`/characters/${characterId}/content/calendar`).query({ from: FROM, to: TO }).set(alice.auth);
    expect(res.status).toBe(200);
    return res.body as Item;
  };
  const plan = async (characterId: string): Promise<Item> => {
    const res = await api(server).post('/schedule/generate').set(alice.auth).send({ character_id: characterId, start_date: START, days: 2 });
    expect(res.status).toBe(201);
    return res.body as Item;
  };
  /** The zone each of the three answers names for a character. */
  const zonesOf = async (characterId: string): Promise<{ calendar: string; mirror: string; schedule: string }> => ({
    calendar: (await calendar(characterId)).timezone,
    mirror: (await mirrorCalendar(characterId)).timezone,
    schedule: (await plan(characterId)).timezone,
  });
  const approvedItem = async (characterId: string): Promise<Item> => {
    const res = await api(server).post('/content/generate').set(alice.auth).send({ character_id: characterId, platform: 'instagram', prompt: 'Morning coffee by the window' });
    expect(res.status).toBe(201);
    const id = res.body.item.id as string;
    return waitFor(async () => {
      const item = (await api(server).get(`/content/${id}`).set(alice.auth)).body.item as Item;
      return item?.status === 'approved' ? item : undefined;
    }, 30_000, `item ${id} to be approved`);
  };

  beforeAll(async () => {
    backing = await createBacking();
    const env = { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_MULTIPLIER: '50' };
    server = await startServer(backing, env);
    if (E2E_MODE === 'services') worker = await startWorker(backing, env);
    const admin = await loginAdmin(server);
    alice = await registerUser(server);
    await setPlan(server, admin, alice.workspace.id, 'agency');
    await grantCredits(server, admin, alice.workspace.id, 500);
    // Posts are planned only on connected platforms (contract §8): Instagram, in sandbox mode.
    await connectSandbox(server, alice, 'instagram');
  }, 90_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()]);
    await backing?.cleanup();
  });

  it('answers the zone the location names, the same in the calendar and in schedule/generate', async () => {
    const got: Array<[string, Record<string, string>]> = [];
    for (const person of LOCATED) {
      const character = await createCharacter({ name: person.name, identity: { location: person.location } });
      expect([person.name, character.timezone, character.timezone_source]).toEqual([person.name, person.zone, 'location']);
      got.push([person.name, await zonesOf(character.id)]);
    }
    expect(got).toEqual(LOCATED.map((p) => [p.name, { calendar: p.zone, mirror: p.zone, schedule: p.zone }]));
  });

  it("answers the character's own timezone in both, before its location", async () => {
    const character = await createCharacter({ name: 'Ines', identity: { location: 'Berlin, Germany' } });
    const patched = await api(server).patch(`/characters/${character.id}`).set(alice.auth).send({ timezone: 'America/Chicago' });
    expect([patched.status, patched.body.character.timezone]).toEqual([200, 'America/Chicago']);
    expect(await zonesOf(character.id)).toEqual({ calendar: 'America/Chicago', mirror: 'America/Chicago', schedule: 'America/Chicago' });

    // Cleared, the location decides again.
    expect((await api(server).patch(`/characters/${character.id}`).set(alice.auth).send({ timezone: null })).status).toBe(200);
    expect(await zonesOf(character.id)).toEqual({ calendar: 'Europe/Berlin', mirror: 'Europe/Berlin', schedule: 'Europe/Berlin' });
  });

  it('answers the default for a character whose location names no known place, and for the workspace calendar', async () => {
    const character = await createCharacter({ name: 'Nemo', identity: { location: 'Atlantis' } });
    expect(await zonesOf(character.id)).toEqual({ calendar: 'America/New_York', mirror: 'America/New_York', schedule: 'America/New_York' });
    const workspace = await api(server).get('/content/calendar').query({ from: FROM, to: TO }).set(alice.auth);
    expect([workspace.status, workspace.body.timezone]).toEqual([200, 'America/New_York']);
  });

  it('plans slots in good hours of that zone and shows them on their local day in the calendar', async () => {
    const got: Array<[string, Item]> = [];
    for (const person of LOCATED) {
      const character = await createCharacter({ name: `${person.name} (autopilot)`, identity: { location: person.location }, settings: { autopilot: true } });
      const item = await approvedItem(character.id);
      const planned = await plan(character.id);
      expect(planned.scheduledPosts.map((p: Item) => p.content_id)).toEqual([item.id]);
      const post = planned.scheduledPosts[0] as Item;
      const { date, time } = local(post.scheduled_at, person.zone);
      const cal = await calendar(character.id);
      const shownOn = cal.days.filter((d: Item) => d.scheduled_posts.some((p: Item) => p.id === post.id)).map((d: Item) => d.date).join();
      got.push([person.name, {
        zone: planned.timezone, calendarZone: cal.timezone, goodHour: INSTAGRAM_SLOTS.includes(time),
        shownOn: shownOn === date ? 'its local day' : `${shownOn || 'no day'} (local date ${date})`,
      }]);
    }
    expect(got).toEqual(LOCATED.map((p) => [p.name, { zone: p.zone, calendarZone: p.zone, goodHour: true, shownOn: 'its local day' }]));
  }, 120_000);

  it('plans a week in that zone: items at the local posting hour, each on its local day of the calendar', async () => {
    const character = await createCharacter({ name: 'Dana', identity: { location: 'Denver, Colorado' } });
    const res = await api(server).post('/content/generate-week').set(alice.auth).send({
      character_id: character.id, week: FROM, posts_per_day: 1, platforms: ['instagram'], trending_topics: ['spring hikes'], target_language: 'en',
    });
    expect(res.status).toBe(202);
    await waitFor(async () => {
      const job = (await api(server).get(`/jobs/${res.body.job.id}`).set(alice.auth)).body.job as Item;
      return job?.status === 'completed' ? job : undefined;
    }, 60_000, 'the week job');

    const cal = await calendar(character.id);
    expect(cal.timezone).toBe('America/Denver');
    // One post a day at 12:00 Denver time, across the switch to daylight saving time on 2031-03-09.
    const days = cal.days.map((d: Item) => [d.date, d.items.map((i: Item) => local(i.planned_for, 'America/Denver'))]);
    expect(days).toEqual(['03', '04', '05', '06', '07', '08', '09'].map((d) => [`2031-03-${d}`, [{ date: `2031-03-${d}`, time: '12:00' }]]));
    expect(cal.days[0].items[0].planned_for).toBe('2031-03-03T19:00:00.000Z');
    expect(cal.days[6].items[0].planned_for).toBe('2031-03-09T18:00:00.000Z');
  }, 120_000);
});
