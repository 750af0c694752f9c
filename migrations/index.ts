import { Foundation1732200000000 } from './1732200000000-foundation.js';
import { CharacterEmbeddingTime1732200003000 } from './1732200003000-character-embedding-time.js';

/** Every migration, in order. TypeORM runs them at start-up and through `npm run migration:run`. */
export const MIGRATIONS = [Foundation1732200000000, CharacterEmbeddingTime1732200003000];
