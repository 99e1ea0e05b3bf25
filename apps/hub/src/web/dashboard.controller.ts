import { Public } from '../auth/auth.guard';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PAGE = readFileSync(join(__dirname, 'dashboard.html'), 'utf8');

/** Serves the (minimal, interim) dashboard page at `/`; it reads the same REST API as everyone else. */
@ApiExcludeController()
@Public()
@Controller()
export class DashboardController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }
}
