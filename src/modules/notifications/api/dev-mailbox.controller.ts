import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Open } from '../../../platform/auth/index.js';
import { ApiErrors } from '../../../platform/http/index.js';
import { DevMailboxService } from '../application/dev-mailbox.service.js';
import { mailboxMessageBody, MailboxQuery, MailboxView } from './dto/mailbox.dto.js';

@ApiTags('development')
@Controller('dev/mailbox')
export class DevMailboxController {
  constructor(private readonly mailbox: DevMailboxService) {}

  @Get()
  @Open()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Development only: the mail kept instead of sent (no SMTP_URL), newest first.',
    description: 'Answers 404 when NODE_ENV=production or when SMTP_URL is set.',
  })
  @ApiOkResponse({ type: MailboxView })
  @ApiErrors('not_found')
  async list(@Query() query: MailboxQuery): Promise<MailboxView> {
    return { data: (await this.mailbox.list(query.to)).map(mailboxMessageBody) };
  }
}
