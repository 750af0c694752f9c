/** What other contexts may use from the characters context. */
export { CharactersModule } from './characters.module.js';
export { CharactersFacade, type PrimaryReferenceImage, type UploadedReferenceImage } from './application/characters.facade.js';
export type { CharacterTemplate, TemplateImage } from './application/character-cloner.js';
export { CharacterFiles, type CharacterFileOwner } from './application/character-files.js';
export type { Character, Appearance, Identity, Personality, Style, Settings } from './domain/character.js';
export { toCharacterBody, CharacterBody } from './api/dto/character.body.js';
export { toCharacterBrief } from './application/character-brief.js';
export { CHARACTERS_ERRORS } from './errors.js';
export { CHARACTERS_JOB_TYPES } from './application/jobs/job-types.js';
