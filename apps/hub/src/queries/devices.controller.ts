import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { ApiAnswer } from '../common/api-answer';
import { ApiQueries, sortAndPageDocs } from './list-query';
import { DEVICE_SORTS, listDevices, listDevicesQuerySchema, devicePageSchema } from './devices.query';

const filters: Array<[string, string]> = [
  ['nodeId', 'one node (uuid)'],
  ['domain', "the node's domain"],
  ['vendor', 'nvidia | ascend | hygon | cambricon'],
  ['model', 'exact model name'],
  ['maxHealth', 'health at most this (0-100)'],
  ['minUtilization', 'utilization at least this (0-1)'],
  ...sortAndPageDocs(DEVICE_SORTS),
];

/** Accelerator devices and their latest usage (the device_state read model). */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1/devices')
export class DevicesController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get()
  @ApiOperation({
    summary: 'Accelerator devices of every node with utilization, memory in use, temperature, health',
  })
  @ApiQueries(filters, listDevicesQuerySchema)
  @ApiAnswer(devicePageSchema)
  list(@Query() query: unknown) {
    return listDevices(this.db, parseBody(listDevicesQuerySchema, query, 'DEVICES.QUERY'));
  }
}
