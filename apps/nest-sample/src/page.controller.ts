import { readFileSync } from 'node:fs';
import { Controller, Get, Header } from '@nestjs/common';

const page = readFileSync(new URL('../public/index.html', import.meta.url), 'utf8');

/** The page a person uses (no external assets). */
@Controller()
export class PageController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  index(): string {
    return page;
  }
}
