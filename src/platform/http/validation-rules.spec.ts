import { describe, expect, it, jest } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsString, validate, type MetadataStorage } from 'class-validator';
import { rememberValidationRules } from './validation-rules.js';

type Storage = Pick<MetadataStorage, 'getTargetValidationMetadatas' | 'groupByPropertyName' | 'addValidationMetadata'>;

/** A storage whose lookups count their calls. */
function countingStorage() {
  const lookUp = jest.fn((..._args: unknown[]) => [] as ReturnType<Storage['getTargetValidationMetadatas']>);
  const group = jest.fn((..._args: unknown[]) => ({}));
  const storage = {
    getTargetValidationMetadatas: lookUp,
    groupByPropertyName: group,
    addValidationMetadata: jest.fn(),
  } as unknown as Storage;
  return { storage, lookUp, group };
}

class Target {}
class Other {}

describe('rememberValidationRules', () => {
  it('looks a class up once per set of options, and groups one answer once', () => {
    const { storage, lookUp, group } = countingStorage();
    rememberValidationRules(storage);
    const first = storage.getTargetValidationMetadatas(Target, '', false, false);
    expect(storage.getTargetValidationMetadatas(Target, '', false, false)).toBe(first);
    storage.getTargetValidationMetadatas(Target, '', true, false);
    storage.getTargetValidationMetadatas(Target, '', false, false, ['admin']);
    storage.getTargetValidationMetadatas(Other, '', false, false);
    expect(lookUp).toHaveBeenCalledTimes(4);
    storage.groupByPropertyName(first);
    storage.groupByPropertyName(first);
    expect(group).toHaveBeenCalledTimes(1);
  });

  it('forgets every answer when a rule is added', () => {
    const { storage, lookUp, group } = countingStorage();
    rememberValidationRules(storage);
    const first = storage.getTargetValidationMetadatas(Target, '', false, false);
    storage.groupByPropertyName(first);
    storage.addValidationMetadata({} as Parameters<Storage['addValidationMetadata']>[0]);
    storage.groupByPropertyName(storage.getTargetValidationMetadatas(Target, '', false, false));
    expect(lookUp).toHaveBeenCalledTimes(2);
    expect(group).toHaveBeenCalledTimes(2);
  });

  it('leaves validation as it was, for classes declared before and after it began', async () => {
    class Before {
      @IsString() name!: string;
    }
    rememberValidationRules();
    expect(await validate(plainToInstance(Before, { name: 1 }))).toHaveLength(1);
    expect(await validate(plainToInstance(Before, { name: 'a' }))).toHaveLength(0);
    class After extends Before {
      @IsInt() count!: number;
    }
    const problems = await validate(plainToInstance(After, { name: 2, count: 'x' }));
    expect(problems.map((p) => p.property).sort()).toEqual(['count', 'name']);
    expect(await validate(plainToInstance(Before, { name: 3 }))).toHaveLength(1);
  });
});
