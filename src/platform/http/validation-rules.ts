import { getMetadataStorage, type MetadataStorage } from 'class-validator';

type RuleLookup = Pick<MetadataStorage, 'getTargetValidationMetadatas' | 'groupByPropertyName' | 'addValidationMetadata'>;
type Rules = ReturnType<MetadataStorage['getTargetValidationMetadatas']>;

const REMEMBERING = Symbol('remembering validation rules');

/**
 * class-validator finds a class's rules afresh on every validation: it filters the class's own, then
 * tests the class against every validated class the application declares (a few hundred here) for
 * ancestors, then groups the rules by property. Profiled, that was a quarter of validating a character
 * create. The rules are fixed once the classes are loaded, so each answer is remembered per class
 * and options, and all of them are forgotten whenever a rule is added (a class loaded later).
 */
export function rememberValidationRules(storage: RuleLookup = getMetadataStorage()): void {
  const marked = storage as RuleLookup & { [REMEMBERING]?: true };
  if (marked[REMEMBERING]) return;
  marked[REMEMBERING] = true;

  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let answers = new Map<object, Map<string, Rules>>();
  let groupings = new WeakMap<Rules, ReturnType<RuleLookup['groupByPropertyName']>>();

  storage.addValidationMetadata = (metadata) => {
    answers = new Map();
    groupings = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let byOptions = answers.get(target);
    if (byOptions === undefined) answers.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (found === undefined) byOptions.set(key, (found = lookUp(target, schema, always, strictGroups, groups)));
    return found;
  };
  // The validator only reads what these two answer, so one answer serves every request.
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupings.get(metadatas);
    if (grouped === undefined) groupings.set(metadatas, (grouped = group(metadatas)));
    return grouped;
  };
}
