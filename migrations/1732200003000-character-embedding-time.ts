import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When a character's face embedding was last recomputed: observable without exposing the vector. */
export class CharacterEmbeddingTime1732200003000 implements MigrationInterface {
  name = 'CharacterEmbeddingTime1732200003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE characters ADD COLUMN face_embedding_updated_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE characters DROP COLUMN IF EXISTS face_embedding_updated_at`);
  }
}
