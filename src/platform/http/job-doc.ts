import { ApiProperty } from '@nestjs/swagger';

// The job record on the wire (contract §6, `toJobBody`), as every context's answers document it.

export class JobFailureDoc {
  @ApiProperty({ example: 'provider_error' }) code!: string;
  @ApiProperty({ example: 'The image provider failed.' }) message!: string;
}

export class JobDoc {
  @ApiProperty({ example: 'job_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'generate_image' }) job_type!: string;
  @ApiProperty({ enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) progress!: number;
  @ApiProperty({ type: String, nullable: true }) character_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) content_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'What the job made; `outputs: [{kind, url}]` lists its files.' })
  result!: Record<string, unknown> | null;
  @ApiProperty({ type: JobFailureDoc, nullable: true }) error!: JobFailureDoc | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

export class JobEnvelopeDoc {
  @ApiProperty({ type: JobDoc }) job!: JobDoc;
}

export class JobListDoc {
  @ApiProperty({ type: [JobDoc] }) jobs!: JobDoc[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}
