import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { AppError } from '../../core/index.js';
import { PageQueryDto } from '../http/index.js';
import { JOB_STATUSES, type JobStatus } from './job.types.js';

const isJobStatus = (s: string): s is JobStatus => (JOB_STATUSES as readonly string[]).includes(s);

@ValidatorConstraint({ name: 'isJobStatusList' })
class IsJobStatusList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && value.split(',').every((s) => isJobStatus(s.trim()));
  }
  defaultMessage(): string {
    return `$property must be a comma-separated list of: ${JOB_STATUSES.join(', ')}`;
  }
}

const TYPE_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;
const CHARACTER_SHAPE = /^char_[0-9A-HJKMNP-TV-Z]{26}$/;

/** `GET /jobs` filters. `type` and `job_type` are one filter under two names (the body calls it job_type). */
export class JobsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'running,pending', description: `Comma-separated statuses (${JOB_STATUSES.join(', ')}); default all.` })
  @IsOptional() @IsString() @MaxLength(200) @Validate(IsJobStatusList)
  status?: string;

  @ApiPropertyOptional({ example: 'generate_image', description: 'One job type, e.g. generate_image, train_lora, generate_speech.' })
  @IsOptional() @IsString() @Matches(TYPE_SHAPE, { message: 'type must be a job type such as generate_image' })
  type?: string;

  @ApiPropertyOptional({ description: 'Same as type.' })
  @IsOptional() @IsString() @Matches(TYPE_SHAPE, { message: 'job_type must be a job type such as generate_image' })
  job_type?: string;

  @ApiPropertyOptional({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' })
  @IsOptional() @IsString() @Matches(CHARACTER_SHAPE, { message: 'character_id must be a character id (char_…)' })
  character_id?: string;
}

export interface JobsQuery {
  statuses?: JobStatus[];
  jobType?: string;
  characterId?: string;
}

/** The filter a query asks for; a job type the service does not run is refused like any bad value. */
export function toJobsQuery(q: JobsQueryDto, knownTypes: readonly string[]): JobsQuery {
  if (q.type !== undefined && q.job_type !== undefined && q.type !== q.job_type) {
    throw invalid('type', 'type and job_type name the same filter; send one');
  }
  const jobType = q.type ?? q.job_type;
  if (jobType !== undefined && !knownTypes.includes(jobType)) {
    throw invalid(q.type !== undefined ? 'type' : 'job_type', `must be one of: ${[...knownTypes].sort().join(', ')}`);
  }
  const statuses = q.status ? [...new Set(q.status.split(',').map((s) => s.trim()).filter(isJobStatus))] : undefined;
  return { statuses, jobType, characterId: q.character_id };
}

/** Worded like the validation pipe's refusals: the first detail's message is the answer's message. */
function invalid(field: string, message: string): AppError {
  const text = message.startsWith(field) ? message : `${field} ${message}`;
  return new AppError('validation_failed', text, [{ field, message: text }]);
}
