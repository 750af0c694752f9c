import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import { strictValidationPipe } from '../../../../platform/http/index.js';
import { CreateCharacterDto, toCharacterInput, UpdateCharacterDto, UploadReferenceImageDto } from './character.dto.js';

const pipe = strictValidationPipe();

async function refused(metatype: ArgumentMetadata['metatype'], body: unknown): Promise<string[]> {
  try {
    await pipe.transform(body, { type: 'body', metatype });
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return (err.details as Array<{ field: string }>).map((d) => d.field);
  }
}

describe('character DTOs', () => {
  it('trims and maps a full create body, keeping only the keys sent', async () => {
    const dto = (await pipe.transform(
      { name: ' Mia ', niche: ' travel ', appearance: { aesthetic: ' boho ' }, style: { presets: [' a ', 'b'] }, settings: { autopilot: true }, talking_head_enabled: false, reference_images: ['http://localhost:0/api/v1/media/a/b.png'] },
      { type: 'body', metatype: CreateCharacterDto },
    )) as CreateCharacterDto;
    expect(toCharacterInput(dto)).toEqual({
      name: 'Mia',
      niche: 'travel',
      appearance: { aesthetic: 'boho' },
      identity: undefined,
      personality: undefined,
      style: { presets: ['a', 'b'] },
      settings: { autopilot: true },
      talkingHeadEnabled: false,
      referenceImages: ['http://localhost:0/api/v1/media/a/b.png'],
      timezone: undefined,
    });
  });

  it.each([
    [{ niche: 'x' }, 'name'],
    [{ name: 'x' }, 'niche'],
    [{ name: 'x', niche: 'y', identity: { location: 'x'.repeat(121) } }, 'identity.location'],
    [{ name: 'x', niche: 'y', personality: null }, 'personality'],
    [{ name: 'x', niche: 'y', style: { presets: 'a' } }, 'style.presets'],
    [{ name: 'x', niche: 'y', reference_images: ['javascript:alert(1)'] }, 'reference_images'],
    [{ name: 'x', niche: 'y', reference_images: ['not a url'] }, 'reference_images'],
    [{ name: 'x', niche: 'y', talking_head_enabled: 'true' }, 'talking_head_enabled'],
  ])('refuses create body %j at %s', async (body, field) => {
    expect(await refused(CreateCharacterDto, body)).toContain(field);
  });

  it('takes a valid or null timezone on update only', async () => {
    expect(await refused(UpdateCharacterDto, { timezone: 'Asia/Tokyo' })).toEqual([]);
    expect(await refused(UpdateCharacterDto, { timezone: null })).toEqual([]);
    expect(await refused(UpdateCharacterDto, {})).toEqual([]);
    expect(await refused(UpdateCharacterDto, { timezone: 'Atlantis/Capital' })).toContain('timezone');
    expect(await refused(UpdateCharacterDto, { timezone: 5 })).toContain('timezone');
    expect(await refused(UpdateCharacterDto, { niche: null })).toContain('niche');
    const dto = (await pipe.transform({ timezone: null }, { type: 'body', metatype: UpdateCharacterDto })) as UpdateCharacterDto;
    expect(toCharacterInput(dto).timezone).toBeNull();
  });

  it('accepts only primary or reference as an upload type', async () => {
    expect(await refused(UploadReferenceImageDto, { type: 'primary' })).toEqual([]);
    expect(await refused(UploadReferenceImageDto, {})).toEqual([]);
    expect(await refused(UploadReferenceImageDto, { type: 'avatar' })).toContain('type');
    expect(await refused(UploadReferenceImageDto, { type: 'primary', other: 'x' })).toContain('other');
  });
});
